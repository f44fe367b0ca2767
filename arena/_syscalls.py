"""The system calls a bot's processes may make: the allow-list of the seccomp program
that bubblewrap installs in every bot process (`arena._seccomp.allowlist_program`;
issue 40.2; SPEC §14.4).

Default-deny, as nsjail, Chrome and the IOI's isolate are: a call not in `POLICY` fails
with ENOSYS, as on a kernel without it (a runtime that probes for a new call falls
back, as it would on an older kernel), and the calls a bot has no business making
(mounts, ptrace, bpf, kernel modules, the machine's clock) fail with EPERM. A refused
call returns an error, never kills: a runtime that probes runs on.

The calls allowed are the union of what every example kit made in ten games under the
sandbox (Python, C, JavaScript, Go, Rust, Java: `bench/syscalls.py`, which prints them
per kit; the table in docs/fair-play.md), what bubblewrap, prlimit and setpriv make after the
program is installed, and what the C library and those runtimes may call instead on
another kernel or version (statx or newfstatat, poll or epoll, pipe or pipe2, ...).

Some calls are judged by their arguments (`arena._seccomp` compiles the judges):

- lock: succeeds without locking anything (errno 0);
- times: the calls that set a file's times succeed without setting them (errno 0);
- fcntl: allowed, but its locks succeed without locking, F_GETLK fails with ENOLCK,
  F_NOTIFY, F_SETLEASE and F_SETSIG with EPERM;
- madvise: allowed with advice that moves no page of a file into or out of the shared
  page cache (MADV_DONTNEED and MADV_FREE included, which allocators use: they drop a
  process's own mapping and leave the cache alone), EPERM for the rest;
- socket: AF_UNIX, AF_INET, AF_INET6 and AF_NETLINK, EAFNOSUPPORT for any other family;
- preadv2: EOPNOTSUPP with RWF_NOWAIT;
- clone: EPERM with any flag for a new namespace, or with SIGCONT as the child's exit
  signal;
- prctl: EPERM for PR_SET_PDEATHSIG with SIGCONT.

Numbers: `NUMBERS` gives each call's number on x86_64, i386 (a 64-bit kernel's int 0x80
compatibility calls) and aarch64, from the kernel's headers (6.1) and, past them, its
syscall tables (451 and on, the same on every architecture). x32's calls (x86_64's
numbers with bit 30 set) fail with EPERM.
"""

from __future__ import annotations

from typing import NamedTuple

ALLOW = "allow"
ENOSYS = "ENOSYS"
EPERM = "EPERM"
JUDGED = ("lock", "times", "fcntl", "madvise", "socket", "preadv2", "clone", "prctl")
"""The verdicts that look at a call's arguments (`arena._seccomp`)."""


class Rule(NamedTuple):
    verdict: str
    """ALLOW, ENOSYS, EPERM, or one of JUDGED."""
    reason: str
    names: tuple[str, ...]


def _rule(verdict: str, reason: str, names: str) -> Rule:
    return Rule(verdict, reason, tuple(names.split()))


POLICY: tuple[Rule, ...] = (
    _rule(
        ALLOW,
        "reading and writing open files, pipes and sockets",
        """
        read write readv writev pread64 pwrite64 preadv pwritev pwritev2 lseek
        _llseek close close_range dup dup2 dup3 pipe pipe2 sendfile sendfile64
        splice tee vmsplice copy_file_range ioctl fsync fdatasync sync_file_range
        ftruncate ftruncate64 fallocate
        """,
    ),
    _rule(
        ALLOW,
        "files and folders by name (what a process may touch the mounts decide)",
        """
        open openat openat2 creat access faccessat faccessat2 stat lstat fstat
        newfstatat statx stat64 lstat64 fstat64 fstatat64 statfs fstatfs statfs64
        fstatfs64 readlink readlinkat getdents getdents64 getcwd chdir fchdir mkdir
        mkdirat rmdir unlink unlinkat rename renameat renameat2 link linkat symlink
        symlinkat mknod mknodat chmod fchmod fchmodat fchmodat2 chown fchown lchown
        fchownat chown32 fchown32 lchown32 umask truncate truncate64
        """,
    ),
    _rule(
        ALLOW,
        "extended attributes (of the bot's own files; the mounts decide)",
        """
        getxattr lgetxattr fgetxattr listxattr llistxattr flistxattr setxattr
        lsetxattr fsetxattr removexattr lremovexattr fremovexattr getxattrat
        listxattrat setxattrat removexattrat
        """,
    ),
    _rule(
        ALLOW,
        "memory: every allocator and runtime maps, protects and frees its own",
        """
        brk mmap mmap2 munmap mremap mprotect msync mlock mlock2 munlock mlockall
        munlockall membarrier memfd_create pkey_alloc pkey_free pkey_mprotect
        get_mempolicy set_mempolicy mbind map_shadow_stack mseal
        """,
    ),
    _rule(
        ALLOW,
        "processes and threads (in the sandbox's own PID namespace)",
        """
        fork vfork execve execveat exit exit_group wait4 waitid waitpid
        set_tid_address set_robust_list get_robust_list rseq futex futex_time64
        futex_waitv futex_wake futex_wait futex_requeue gettid getpid getppid
        getpgrp getpgid getsid kill tkill tgkill rt_sigqueueinfo rt_tgsigqueueinfo
        pidfd_open pidfd_send_signal arch_prctl set_thread_area get_thread_area
        seccomp personality restart_syscall
        """,
    ),
    _rule(
        "prctl",
        "prctl: PR_SET_PDEATHSIG with SIGCONT fails with EPERM (a process whose exit began"
        " before a stop ends it, and its SIGCONT then ends its child's stop: SPEC §8.5)",
        """
        prctl
        """,
    ),
    _rule(
        ALLOW,
        "identity and privileges: queried by runtimes, dropped by setpriv (as root) after "
        "bwrap installs the filter",
        """
        getuid geteuid getgid getegid getresuid getresgid getgroups getuid32
        geteuid32 getgid32 getegid32 getresuid32 getresgid32 getgroups32 setuid
        setgid setreuid setregid setresuid setresgid setgroups setfsuid setfsgid
        setuid32 setgid32 setreuid32 setregid32 setresuid32 setresgid32 setgroups32
        setfsuid32 setfsgid32 capget capset
        """,
    ),
    _rule(
        ALLOW,
        "limits, usage and scheduling of the bot's own processes",
        """
        getrlimit setrlimit ugetrlimit prlimit64 getrusage times sysinfo uname
        getcpu getpriority setpriority sched_yield sched_getaffinity
        sched_setaffinity sched_getparam sched_setparam sched_getscheduler
        sched_setscheduler sched_get_priority_max sched_get_priority_min
        sched_rr_get_interval sched_rr_get_interval_time64 sched_getattr
        sched_setattr ioprio_get ioprio_set getrandom
        """,
    ),
    _rule(
        ALLOW,
        "signals",
        """
        rt_sigaction rt_sigprocmask rt_sigreturn rt_sigsuspend rt_sigpending
        rt_sigtimedwait rt_sigtimedwait_time64 sigaltstack signalfd signalfd4
        sigaction sigprocmask sigreturn sigsuspend sigpending pause alarm
        """,
    ),
    _rule(
        ALLOW,
        "clocks and timers (reading them; setting the machine's clock is denied below)",
        """
        clock_gettime clock_gettime64 clock_getres clock_getres_time64
        clock_nanosleep clock_nanosleep_time64 nanosleep gettimeofday time getitimer
        setitimer timer_settime timer_settime64 timer_gettime timer_gettime64
        timer_getoverrun timer_delete timerfd_create timerfd_settime timerfd_settime64
        timerfd_gettime timerfd_gettime64
        """,
    ),
    _rule(
        ENOSYS,
        "signals of a process's choosing from the kernel: a POSIX timer, or a message "
        "queue's notice, told to send SIGCONT ended the stop arena puts a bot in while "
        "another decides and between its games (SPEC §8.5), every millisecond (their "
        "signal is behind a pointer; setitimer, alarm and timerfd remain)",
        """
        timer_create mq_notify
        """,
    ),
    _rule(
        ALLOW,
        "waiting for descriptors",
        """
        poll ppoll ppoll_time64 select _newselect pselect6 pselect6_time64
        epoll_create epoll_create1 epoll_ctl epoll_wait epoll_pwait epoll_pwait2
        eventfd eventfd2
        """,
    ),
    _rule(
        ALLOW,
        "sockets, once made (socket and socketpair are judged by family below): the "
        "network namespace is the sandbox's own, with a loopback that is down",
        """
        bind listen accept accept4 connect getsockname getpeername sendto recvfrom
        sendmsg recvmsg sendmmsg recvmmsg recvmmsg_time64 shutdown setsockopt
        getsockopt
        """,
    ),
    _rule(
        ALLOW,
        "System V IPC and POSIX message queues (the sandbox's own IPC namespace)",
        """
        shmget shmat shmdt shmctl semget semop semtimedop semtimedop_time64 semctl
        msgget msgsnd msgrcv msgctl mq_open mq_unlink mq_timedsend
        mq_timedsend_time64 mq_timedreceive mq_timedreceive_time64 mq_getsetattr ipc
        """,
    ),
    _rule(
        "lock",
        "flock: succeeds without locking (a lock would be a signal to another process of "
        "the same file)",
        """
        flock
        """,
    ),
    _rule(
        "times",
        "setting a file's times: succeeds without setting them (the device nodes in /dev are "
        "the machine's, 0666, and any process may set their times to now: a number set "
        "by one process was read by another, of another sandbox and later)",
        """
        utime utimes utimensat futimesat utimensat_time64
        """,
    ),
    _rule(
        "fcntl",
        "fcntl: locks succeed without locking, F_GETLK fails with ENOLCK, F_NOTIFY, "
        "F_SETLEASE and F_SETSIG (a signal of one's choosing, SIGCONT, when a descriptor "
        "is ready) with EPERM",
        """
        fcntl fcntl64
        """,
    ),
    _rule(
        "madvise",
        "madvise: only advice that moves no page into or out of the shared page cache",
        """
        madvise
        """,
    ),
    _rule(
        "socket",
        "socket and socketpair: AF_UNIX, AF_INET, AF_INET6 and AF_NETLINK only, else "
        "EAFNOSUPPORT (AF_VSOCK's ports are the machine's)",
        """
        socket socketpair
        """,
    ),
    _rule(
        "preadv2",
        "preadv2: RWF_NOWAIT fails with EOPNOTSUPP (it tells whether a page is cached)",
        """
        preadv2
        """,
    ),
    _rule(
        "clone",
        "clone: no new namespace, no SIGCONT as the child's exit signal (EPERM)",
        """
        clone
        """,
    ),
    _rule(
        ENOSYS,
        "clone3: its flags are behind a pointer; the C library falls back to clone",
        """
        clone3
        """,
    ),
    _rule(
        ENOSYS,
        "i386's socketcall: its arguments are behind a pointer a filter cannot read (the "
        "C library then calls socket and the others itself)",
        """
        socketcall
        """,
    ),
    _rule(
        ENOSYS,
        "probes of the page cache: mincore, cachestat, and reads without waiting "
        "(io_uring, Linux AIO; runtimes fall back to threads)",
        """
        mincore cachestat io_uring_setup io_uring_enter io_uring_register io_setup
        io_destroy io_submit io_cancel io_getevents io_pgetevents
        io_pgetevents_time64
        """,
    ),
    _rule(
        ENOSYS,
        "file watches: an open or a read of a shared file seen by another process",
        """
        inotify_init inotify_init1 inotify_add_watch inotify_rm_watch
        """,
    ),
    _rule(
        ENOSYS,
        "the kernel's keyrings: not namespaced as root; a named keyring carried a key "
        "across processes",
        """
        add_key request_key keyctl
        """,
    ),
    _rule(
        EPERM,
        "moving pages of a file into or out of the page cache without reading them",
        """
        fadvise64 fadvise64_64 readahead process_madvise
        """,
    ),
    _rule(
        EPERM,
        "fanotify: watches on files",
        """
        fanotify_init fanotify_mark
        """,
    ),
    _rule(
        EPERM,
        "leaving the process group arena stops between turns (SPEC §8.5)",
        """
        setsid setpgid
        """,
    ),
    _rule(
        EPERM,
        "namespaces and mounts: the sandbox's are fixed",
        """
        unshare setns mount umount umount2 pivot_root chroot fsopen fsconfig fsmount
        fspick move_mount open_tree open_tree_attr mount_setattr statmount listmount
        """,
    ),
    _rule(
        EPERM,
        "other processes' memory and the kernel's insides",
        """
        ptrace process_vm_readv process_vm_writev kcmp pidfd_getfd bpf
        perf_event_open userfaultfd lookup_dcookie modify_ldt vm86 vm86old iopl
        ioperm syslog
        """,
    ),
    _rule(
        EPERM,
        "the machine: its clock, kernel modules, reboot, swap, quotas, names; sync and "
        "syncfs flush every file system of the machine",
        """
        reboot kexec_load kexec_file_load init_module finit_module delete_module
        swapon swapoff acct quotactl quotactl_fd sethostname setdomainname
        settimeofday clock_settime clock_settime64 adjtimex clock_adjtime
        clock_adjtime64 stime sync syncfs vhangup nfsservctl _sysctl uselib ustat
        sysfs
        """,
    ),
    _rule(
        EPERM,
        "file handles: open_by_handle_at opens any file of a mount by its number",
        """
        name_to_handle_at open_by_handle_at
        """,
    ),
    _rule(
        EPERM,
        "other processes' pages, and memory the machine has little of",
        """
        migrate_pages move_pages set_mempolicy_home_node process_mrelease
        memfd_secret
        """,
    ),
)

ARCHES = ("x86_64", "i386", "aarch64")
"""The numberings of `NUMBERS`, in its order."""
AUDIT_ARCH = {"x86_64": 0xC000003E, "i386": 0x40000003, "aarch64": 0xC00000B7}
"""Each numbering's AUDIT_ARCH_* (`struct seccomp_data`'s arch)."""
MACHINES = {"x86_64": ("x86_64", "i386"), "aarch64": ("aarch64",)}
"""The numberings a process may use on each machine (`platform.machine()`)."""
X32_BIT = 0x40000000
"""x86_64's x32 calls: its own numbers with this bit set (EPERM)."""

# Each call's number on x86_64, i386 and aarch64 (None: the architecture lacks it).
NUMBERS: dict[str, tuple[int | None, int | None, int | None]] = {
    "_llseek": (None, 140, None),
    "_newselect": (None, 142, None),
    "_sysctl": (156, 149, None),
    "accept": (43, None, 202),
    "accept4": (288, 364, 242),
    "access": (21, 33, None),
    "acct": (163, 51, 89),
    "add_key": (248, 286, 217),
    "adjtimex": (159, 124, 171),
    "alarm": (37, 27, None),
    "arch_prctl": (158, 384, None),
    "bind": (49, 361, 200),
    "bpf": (321, 357, 280),
    "brk": (12, 45, 214),
    "cachestat": (451, 451, 451),
    "capget": (125, 184, 90),
    "capset": (126, 185, 91),
    "chdir": (80, 12, 49),
    "chmod": (90, 15, None),
    "chown": (92, 182, None),
    "chown32": (None, 212, None),
    "chroot": (161, 61, 51),
    "clock_adjtime": (305, 343, 266),
    "clock_adjtime64": (None, 405, None),
    "clock_getres": (229, 266, 114),
    "clock_getres_time64": (None, 406, None),
    "clock_gettime": (228, 265, 113),
    "clock_gettime64": (None, 403, None),
    "clock_nanosleep": (230, 267, 115),
    "clock_nanosleep_time64": (None, 407, None),
    "clock_settime": (227, 264, 112),
    "clock_settime64": (None, 404, None),
    "clone": (56, 120, 220),
    "clone3": (435, 435, 435),
    "close": (3, 6, 57),
    "close_range": (436, 436, 436),
    "connect": (42, 362, 203),
    "copy_file_range": (326, 377, 285),
    "creat": (85, 8, None),
    "delete_module": (176, 129, 106),
    "dup": (32, 41, 23),
    "dup2": (33, 63, None),
    "dup3": (292, 330, 24),
    "epoll_create": (213, 254, None),
    "epoll_create1": (291, 329, 20),
    "epoll_ctl": (233, 255, 21),
    "epoll_pwait": (281, 319, 22),
    "epoll_pwait2": (441, 441, 441),
    "epoll_wait": (232, 256, None),
    "eventfd": (284, 323, None),
    "eventfd2": (290, 328, 19),
    "execve": (59, 11, 221),
    "execveat": (322, 358, 281),
    "exit": (60, 1, 93),
    "exit_group": (231, 252, 94),
    "faccessat": (269, 307, 48),
    "faccessat2": (439, 439, 439),
    "fadvise64": (221, 250, 223),
    "fadvise64_64": (None, 272, None),
    "fallocate": (285, 324, 47),
    "fanotify_init": (300, 338, 262),
    "fanotify_mark": (301, 339, 263),
    "fchdir": (81, 133, 50),
    "fchmod": (91, 94, 52),
    "fchmodat": (268, 306, 53),
    "fchmodat2": (452, 452, 452),
    "fchown": (93, 95, 55),
    "fchown32": (None, 207, None),
    "fchownat": (260, 298, 54),
    "fcntl": (72, 55, 25),
    "fcntl64": (None, 221, None),
    "fdatasync": (75, 148, 83),
    "fgetxattr": (193, 231, 10),
    "finit_module": (313, 350, 273),
    "flistxattr": (196, 234, 13),
    "flock": (73, 143, 32),
    "fork": (57, 2, None),
    "fremovexattr": (199, 237, 16),
    "fsconfig": (431, 431, 431),
    "fsetxattr": (190, 228, 7),
    "fsmount": (432, 432, 432),
    "fsopen": (430, 430, 430),
    "fspick": (433, 433, 433),
    "fstat": (5, 108, 80),
    "fstat64": (None, 197, None),
    "fstatat64": (None, 300, None),
    "fstatfs": (138, 100, 44),
    "fstatfs64": (None, 269, None),
    "fsync": (74, 118, 82),
    "ftruncate": (77, 93, 46),
    "ftruncate64": (None, 194, None),
    "futex": (202, 240, 98),
    "futex_requeue": (456, 456, 456),
    "futex_time64": (None, 422, None),
    "futex_wait": (455, 455, 455),
    "futex_waitv": (449, 449, 449),
    "futex_wake": (454, 454, 454),
    "futimesat": (261, 299, None),
    "get_mempolicy": (239, 275, 236),
    "get_robust_list": (274, 312, 100),
    "get_thread_area": (211, 244, None),
    "getcpu": (309, 318, 168),
    "getcwd": (79, 183, 17),
    "getdents": (78, 141, None),
    "getdents64": (217, 220, 61),
    "getegid": (108, 50, 177),
    "getegid32": (None, 202, None),
    "geteuid": (107, 49, 175),
    "geteuid32": (None, 201, None),
    "getgid": (104, 47, 176),
    "getgid32": (None, 200, None),
    "getgroups": (115, 80, 158),
    "getgroups32": (None, 205, None),
    "getitimer": (36, 105, 102),
    "getpeername": (52, 368, 205),
    "getpgid": (121, 132, 155),
    "getpgrp": (111, 65, None),
    "getpid": (39, 20, 172),
    "getppid": (110, 64, 173),
    "getpriority": (140, 96, 141),
    "getrandom": (318, 355, 278),
    "getresgid": (120, 171, 150),
    "getresgid32": (None, 211, None),
    "getresuid": (118, 165, 148),
    "getresuid32": (None, 209, None),
    "getrlimit": (97, 76, 163),
    "getrusage": (98, 77, 165),
    "getsid": (124, 147, 156),
    "getsockname": (51, 367, 204),
    "getsockopt": (55, 365, 209),
    "gettid": (186, 224, 178),
    "gettimeofday": (96, 78, 169),
    "getuid": (102, 24, 174),
    "getuid32": (None, 199, None),
    "getxattr": (191, 229, 8),
    "getxattrat": (464, 464, 464),
    "init_module": (175, 128, 105),
    "inotify_add_watch": (254, 292, 27),
    "inotify_init": (253, 291, None),
    "inotify_init1": (294, 332, 26),
    "inotify_rm_watch": (255, 293, 28),
    "io_cancel": (210, 249, 3),
    "io_destroy": (207, 246, 1),
    "io_getevents": (208, 247, 4),
    "io_pgetevents": (333, 385, 292),
    "io_pgetevents_time64": (None, 416, None),
    "io_setup": (206, 245, 0),
    "io_submit": (209, 248, 2),
    "io_uring_enter": (426, 426, 426),
    "io_uring_register": (427, 427, 427),
    "io_uring_setup": (425, 425, 425),
    "ioctl": (16, 54, 29),
    "ioperm": (173, 101, None),
    "iopl": (172, 110, None),
    "ioprio_get": (252, 290, 31),
    "ioprio_set": (251, 289, 30),
    "ipc": (None, 117, None),
    "kcmp": (312, 349, 272),
    "kexec_file_load": (320, None, 294),
    "kexec_load": (246, 283, 104),
    "keyctl": (250, 288, 219),
    "kill": (62, 37, 129),
    "lchown": (94, 16, None),
    "lchown32": (None, 198, None),
    "lgetxattr": (192, 230, 9),
    "link": (86, 9, None),
    "linkat": (265, 303, 37),
    "listen": (50, 363, 201),
    "listmount": (458, 458, 458),
    "listxattr": (194, 232, 11),
    "listxattrat": (465, 465, 465),
    "llistxattr": (195, 233, 12),
    "lookup_dcookie": (212, 253, 18),
    "lremovexattr": (198, 236, 15),
    "lseek": (8, 19, 62),
    "lsetxattr": (189, 227, 6),
    "lstat": (6, 107, None),
    "lstat64": (None, 196, None),
    "madvise": (28, 219, 233),
    "map_shadow_stack": (453, None, None),
    "mbind": (237, 274, 235),
    "membarrier": (324, 375, 283),
    "memfd_create": (319, 356, 279),
    "memfd_secret": (447, 447, 447),
    "migrate_pages": (256, 294, 238),
    "mincore": (27, 218, 232),
    "mkdir": (83, 39, None),
    "mkdirat": (258, 296, 34),
    "mknod": (133, 14, None),
    "mknodat": (259, 297, 33),
    "mlock": (149, 150, 228),
    "mlock2": (325, 376, 284),
    "mlockall": (151, 152, 230),
    "mmap": (9, 90, 222),
    "mmap2": (None, 192, None),
    "modify_ldt": (154, 123, None),
    "mount": (165, 21, 40),
    "mount_setattr": (442, 442, 442),
    "move_mount": (429, 429, 429),
    "move_pages": (279, 317, 239),
    "mprotect": (10, 125, 226),
    "mq_getsetattr": (245, 282, 185),
    "mq_notify": (244, 281, 184),
    "mq_open": (240, 277, 180),
    "mq_timedreceive": (243, 280, 183),
    "mq_timedreceive_time64": (None, 419, None),
    "mq_timedsend": (242, 279, 182),
    "mq_timedsend_time64": (None, 418, None),
    "mq_unlink": (241, 278, 181),
    "mremap": (25, 163, 216),
    "mseal": (462, 462, 462),
    "msgctl": (71, 402, 187),
    "msgget": (68, 399, 186),
    "msgrcv": (70, 401, 188),
    "msgsnd": (69, 400, 189),
    "msync": (26, 144, 227),
    "munlock": (150, 151, 229),
    "munlockall": (152, 153, 231),
    "munmap": (11, 91, 215),
    "name_to_handle_at": (303, 341, 264),
    "nanosleep": (35, 162, 101),
    "newfstatat": (262, None, 79),
    "nfsservctl": (180, 169, 42),
    "open": (2, 5, None),
    "open_by_handle_at": (304, 342, 265),
    "open_tree": (428, 428, 428),
    "open_tree_attr": (467, 467, 467),
    "openat": (257, 295, 56),
    "openat2": (437, 437, 437),
    "pause": (34, 29, None),
    "perf_event_open": (298, 336, 241),
    "personality": (135, 136, 92),
    "pidfd_getfd": (438, 438, 438),
    "pidfd_open": (434, 434, 434),
    "pidfd_send_signal": (424, 424, 424),
    "pipe": (22, 42, None),
    "pipe2": (293, 331, 59),
    "pivot_root": (155, 217, 41),
    "pkey_alloc": (330, 381, 289),
    "pkey_free": (331, 382, 290),
    "pkey_mprotect": (329, 380, 288),
    "poll": (7, 168, None),
    "ppoll": (271, 309, 73),
    "ppoll_time64": (None, 414, None),
    "prctl": (157, 172, 167),
    "pread64": (17, 180, 67),
    "preadv": (295, 333, 69),
    "preadv2": (327, 378, 286),
    "prlimit64": (302, 340, 261),
    "process_madvise": (440, 440, 440),
    "process_mrelease": (448, 448, 448),
    "process_vm_readv": (310, 347, 270),
    "process_vm_writev": (311, 348, 271),
    "pselect6": (270, 308, 72),
    "pselect6_time64": (None, 413, None),
    "ptrace": (101, 26, 117),
    "pwrite64": (18, 181, 68),
    "pwritev": (296, 334, 70),
    "pwritev2": (328, 379, 287),
    "quotactl": (179, 131, 60),
    "quotactl_fd": (443, 443, 443),
    "read": (0, 3, 63),
    "readahead": (187, 225, 213),
    "readlink": (89, 85, None),
    "readlinkat": (267, 305, 78),
    "readv": (19, 145, 65),
    "reboot": (169, 88, 142),
    "recvfrom": (45, 371, 207),
    "recvmmsg": (299, 337, 243),
    "recvmmsg_time64": (None, 417, None),
    "recvmsg": (47, 372, 212),
    "removexattr": (197, 235, 14),
    "removexattrat": (466, 466, 466),
    "rename": (82, 38, None),
    "renameat": (264, 302, 38),
    "renameat2": (316, 353, 276),
    "request_key": (249, 287, 218),
    "restart_syscall": (219, 0, 128),
    "rmdir": (84, 40, None),
    "rseq": (334, 386, 293),
    "rt_sigaction": (13, 174, 134),
    "rt_sigpending": (127, 176, 136),
    "rt_sigprocmask": (14, 175, 135),
    "rt_sigqueueinfo": (129, 178, 138),
    "rt_sigreturn": (15, 173, 139),
    "rt_sigsuspend": (130, 179, 133),
    "rt_sigtimedwait": (128, 177, 137),
    "rt_sigtimedwait_time64": (None, 421, None),
    "rt_tgsigqueueinfo": (297, 335, 240),
    "sched_get_priority_max": (146, 159, 125),
    "sched_get_priority_min": (147, 160, 126),
    "sched_getaffinity": (204, 242, 123),
    "sched_getattr": (315, 352, 275),
    "sched_getparam": (143, 155, 121),
    "sched_getscheduler": (145, 157, 120),
    "sched_rr_get_interval": (148, 161, 127),
    "sched_rr_get_interval_time64": (None, 423, None),
    "sched_setaffinity": (203, 241, 122),
    "sched_setattr": (314, 351, 274),
    "sched_setparam": (142, 154, 118),
    "sched_setscheduler": (144, 156, 119),
    "sched_yield": (24, 158, 124),
    "seccomp": (317, 354, 277),
    "select": (23, 82, None),
    "semctl": (66, 394, 191),
    "semget": (64, 393, 190),
    "semop": (65, None, 193),
    "semtimedop": (220, None, 192),
    "semtimedop_time64": (None, 420, None),
    "sendfile": (40, 187, 71),
    "sendfile64": (None, 239, None),
    "sendmmsg": (307, 345, 269),
    "sendmsg": (46, 370, 211),
    "sendto": (44, 369, 206),
    "set_mempolicy": (238, 276, 237),
    "set_mempolicy_home_node": (450, 450, 450),
    "set_robust_list": (273, 311, 99),
    "set_thread_area": (205, 243, None),
    "set_tid_address": (218, 258, 96),
    "setdomainname": (171, 121, 162),
    "setfsgid": (123, 139, 152),
    "setfsgid32": (None, 216, None),
    "setfsuid": (122, 138, 151),
    "setfsuid32": (None, 215, None),
    "setgid": (106, 46, 144),
    "setgid32": (None, 214, None),
    "setgroups": (116, 81, 159),
    "setgroups32": (None, 206, None),
    "sethostname": (170, 74, 161),
    "setitimer": (38, 104, 103),
    "setns": (308, 346, 268),
    "setpgid": (109, 57, 154),
    "setpriority": (141, 97, 140),
    "setregid": (114, 71, 143),
    "setregid32": (None, 204, None),
    "setresgid": (119, 170, 149),
    "setresgid32": (None, 210, None),
    "setresuid": (117, 164, 147),
    "setresuid32": (None, 208, None),
    "setreuid": (113, 70, 145),
    "setreuid32": (None, 203, None),
    "setrlimit": (160, 75, 164),
    "setsid": (112, 66, 157),
    "setsockopt": (54, 366, 208),
    "settimeofday": (164, 79, 170),
    "setuid": (105, 23, 146),
    "setuid32": (None, 213, None),
    "setxattr": (188, 226, 5),
    "setxattrat": (463, 463, 463),
    "shmat": (30, 397, 196),
    "shmctl": (31, 396, 195),
    "shmdt": (67, 398, 197),
    "shmget": (29, 395, 194),
    "shutdown": (48, 373, 210),
    "sigaction": (None, 67, None),
    "sigaltstack": (131, 186, 132),
    "signalfd": (282, 321, None),
    "signalfd4": (289, 327, 74),
    "sigpending": (None, 73, None),
    "sigprocmask": (None, 126, None),
    "sigreturn": (None, 119, None),
    "sigsuspend": (None, 72, None),
    "socket": (41, 359, 198),
    "socketcall": (None, 102, None),
    "socketpair": (53, 360, 199),
    "splice": (275, 313, 76),
    "stat": (4, 106, None),
    "stat64": (None, 195, None),
    "statfs": (137, 99, 43),
    "statfs64": (None, 268, None),
    "statmount": (457, 457, 457),
    "statx": (332, 383, 291),
    "stime": (None, 25, None),
    "swapoff": (168, 115, 225),
    "swapon": (167, 87, 224),
    "symlink": (88, 83, None),
    "symlinkat": (266, 304, 36),
    "sync": (162, 36, 81),
    "sync_file_range": (277, 314, 84),
    "syncfs": (306, 344, 267),
    "sysfs": (139, 135, None),
    "sysinfo": (99, 116, 179),
    "syslog": (103, 103, 116),
    "tee": (276, 315, 77),
    "tgkill": (234, 270, 131),
    "time": (201, 13, None),
    "timer_create": (222, 259, 107),
    "timer_delete": (226, 263, 111),
    "timer_getoverrun": (225, 262, 109),
    "timer_gettime": (224, 261, 108),
    "timer_gettime64": (None, 408, None),
    "timer_settime": (223, 260, 110),
    "timer_settime64": (None, 409, None),
    "timerfd_create": (283, 322, 85),
    "timerfd_gettime": (287, 326, 87),
    "timerfd_gettime64": (None, 410, None),
    "timerfd_settime": (286, 325, 86),
    "timerfd_settime64": (None, 411, None),
    "times": (100, 43, 153),
    "tkill": (200, 238, 130),
    "truncate": (76, 92, 45),
    "truncate64": (None, 193, None),
    "ugetrlimit": (None, 191, None),
    "umask": (95, 60, 166),
    "umount": (None, 22, None),
    "umount2": (166, 52, 39),
    "uname": (63, 122, 160),
    "unlink": (87, 10, None),
    "unlinkat": (263, 301, 35),
    "unshare": (272, 310, 97),
    "uselib": (134, 86, None),
    "userfaultfd": (323, 374, 282),
    "ustat": (136, 62, None),
    "utime": (132, 30, None),
    "utimensat": (280, 320, 88),
    "utimensat_time64": (None, 412, None),
    "utimes": (235, 271, None),
    "vfork": (58, 190, None),
    "vhangup": (153, 111, 58),
    "vm86": (None, 166, None),
    "vm86old": (None, 113, None),
    "vmsplice": (278, 316, 75),
    "wait4": (61, 114, 260),
    "waitid": (247, 284, 95),
    "waitpid": (None, 7, None),
    "write": (1, 4, 64),
    "writev": (20, 146, 66),
}  # fmt: skip


def verdicts(arch: str) -> dict[int, str]:
    """The verdict on each number `POLICY` names on `arch` (one of ARCHES); any other
    number gets ENOSYS (and on x86_64 one with X32_BIT set, EPERM)."""
    column = ARCHES.index(arch)
    out = {}
    for rule in POLICY:
        for name in rule.names:
            number = NUMBERS[name][column]
            if number is not None:
                out[number] = rule.verdict
    return out


def verdict(name: str) -> str:
    """The verdict on the call `name` (ENOSYS for a call `POLICY` does not name)."""
    for rule in POLICY:
        if name in rule.names:
            return rule.verdict
    return ENOSYS

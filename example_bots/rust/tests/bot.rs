//! The bot end to end: the built program (target/<profile>/bot) started as the
//! referee starts it, fed the golden frames, its answers read back as frames.

mod common;

use std::io::{Read, Write};
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc::{self, Receiver};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

use common::{bin, json, session_referee_frames};
use ono99::protocol::{
    encode_body, frame, get_array, get_int, get_str, read_message, Value, DEFAULT_MAX_FRAME,
};

const TIMEOUT: Duration = Duration::from_secs(10);

/// What the bot wrote on stdout: a message, the end of stdout, or bytes that are
/// not a valid frame (which fails the test).
#[derive(Debug)]
enum Out {
    Message(Value),
    End,
    Broken(#[allow(dead_code)] String), // shown by {:?} in failure messages
}

struct Bot {
    child: Child,
    stdin: Option<ChildStdin>,
    out: Receiver<Out>,
    stderr: Option<JoinHandle<String>>,
}

impl Bot {
    fn start() -> Bot {
        let mut child = Command::new(env!("CARGO_BIN_EXE_bot"))
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .env_clear() // the arena gives a minimal environment
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start the bot (run cargo build first)");
        let mut stdout = child.stdout.take().unwrap();
        let (tx, out) = mpsc::channel();
        thread::spawn(move || loop {
            // the referee's view of the bot's frames: max_frame 4096 bytes
            let item = match read_message(&mut stdout, DEFAULT_MAX_FRAME) {
                Ok(Some(msg)) => Out::Message(msg),
                Ok(None) => Out::End,
                Err(e) => Out::Broken(e.0),
            };
            let last = !matches!(item, Out::Message(_));
            if tx.send(item).is_err() || last {
                return;
            }
        });
        let mut stderr = child.stderr.take().unwrap();
        let stderr = thread::spawn(move || {
            let mut text = String::new();
            let _ = stderr.read_to_string(&mut text);
            text
        });
        let stdin = child.stdin.take();
        Bot {
            child,
            stdin,
            out,
            stderr: Some(stderr),
        }
    }

    fn send(&mut self, bytes: &[u8]) {
        let stdin = self.stdin.as_mut().expect("stdin is open");
        stdin.write_all(bytes).expect("write to the bot");
        stdin.flush().unwrap();
    }

    fn send_vector(&mut self, name: &str) {
        self.send(&bin(name));
    }

    fn close_stdin(&mut self) {
        self.stdin = None;
    }

    fn next(&self) -> Out {
        self.out
            .recv_timeout(TIMEOUT)
            .expect("an answer from the bot in time")
    }

    fn message(&self, what: &str) -> Value {
        match self.next() {
            Out::Message(msg) => msg,
            other => panic!("{what}: expected a message from the bot, got {other:?}"),
        }
    }

    /// The exit status, within `limit`; the bot is killed (and the test fails) after it.
    fn wait(&mut self, limit: Duration) -> ExitStatus {
        let start = Instant::now();
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status;
            }
            if start.elapsed() > limit {
                let _ = self.child.kill();
                let _ = self.child.wait();
                panic!("the bot did not exit within {limit:?}");
            }
            thread::sleep(Duration::from_millis(5));
        }
    }

    fn stderr(&mut self) -> String {
        self.stderr
            .take()
            .map(|h| h.join().unwrap())
            .unwrap_or_default()
    }
}

fn expect_hello(bot: &Bot) {
    let hello = bot.message("hello");
    assert_eq!(get_str(&hello, "type"), Some("hello"), "{hello}");
    assert_eq!(get_int(&hello, "protocol"), Some(1), "{hello}");
    assert_eq!(get_str(&hello, "name"), Some("rust-heuristic"), "{hello}");
    assert!(get_str(&hello, "version").is_some(), "{hello}");
    assert_eq!(hello.as_map().unwrap().len(), 4, "{hello}");
}

fn expect_action(bot: &Bot, act: &str) {
    let act_json = json(act);
    let action = bot.message(act);
    let legal = get_array(&act_json, "legal").unwrap().len() as i64;
    assert_eq!(get_str(&action, "type"), Some("action"), "{act}: {action}");
    assert_eq!(
        get_int(&action, "request_id"),
        get_int(&act_json, "request_id"),
        "{act}: {action}"
    );
    let choice = get_int(&action, "choice").expect("an int choice");
    assert!(
        (0..legal).contains(&choice),
        "{act}: choice {choice} of {legal}"
    );
}

fn expect_end(bot: &Bot, what: &str) {
    match bot.next() {
        Out::End => {}
        other => panic!("{what}: expected nothing more on stdout, got {other:?}"),
    }
}

#[test]
fn the_golden_session_at_once() {
    // as `cat *.bin | ./bot` would: everything is there before the bot reads
    let mut bot = Bot::start();
    let session = session_referee_frames();
    assert_eq!(session.first().map(String::as_str), Some("referee_hello"));
    assert_eq!(session.last().map(String::as_str), Some("bye"));
    for name in &session {
        bot.send_vector(name);
    }
    bot.close_stdin();
    expect_hello(&bot);
    for name in session.iter().filter(|n| n.starts_with("act_")) {
        expect_action(&bot, name);
    }
    expect_end(&bot, "after bye");
    assert!(
        bot.wait(Duration::from_secs(2)).success(),
        "exit status 0 after bye"
    );
    let log = bot.stderr();
    assert!(
        log.contains("game demo-0001"),
        "diagnostics on stderr: {log}"
    );
}

#[test]
fn message_by_message_with_an_unknown_type_and_bye_on_an_open_stdin() {
    let mut bot = Bot::start();
    let started = Instant::now();
    bot.send_vector("referee_hello");
    expect_hello(&bot);
    println!("hello after {:?}", started.elapsed());
    assert!(started.elapsed() < Duration::from_secs(5), "slow start-up");
    // a message type from a later version: ignored (SPEC §10.2)
    let future = Value::Map(vec![
        (Value::from("type"), Value::from("future")),
        (Value::from("extra"), Value::from(7)),
    ]);
    bot.send(&frame(&encode_body(&future)));
    bot.send_vector("game_start_2022_single");
    bot.send_vector("act_2022_single");
    expect_action(&bot, "act_2022_single");
    bot.send_vector("act_2022_single_owes_two");
    expect_action(&bot, "act_2022_single_owes_two");
    bot.send_vector("game_over_2022_single");
    bot.send_vector("bye");
    // stdin stays open: bye alone must end the bot, within the 2 s of exit_grace_ms
    assert!(
        bot.wait(Duration::from_secs(2)).success(),
        "exit status 0 after bye"
    );
    expect_end(&bot, "after bye");
}

#[test]
fn frames_delivered_byte_by_byte() {
    let mut bot = Bot::start();
    let mut stream = bin("referee_hello");
    stream.extend(bin("game_start_2022_tokens"));
    stream.extend(bin("act_2022_tokens_quad"));
    for byte in stream {
        bot.send(&[byte]);
    }
    expect_hello(&bot);
    expect_action(&bot, "act_2022_tokens_quad");
    bot.close_stdin();
    assert!(bot.wait(Duration::from_secs(2)).success());
}

#[test]
fn end_of_stdin_without_bye_exits_zero() {
    let mut bot = Bot::start();
    bot.send_vector("referee_hello");
    expect_hello(&bot);
    bot.send_vector("game_start_2022_single");
    bot.close_stdin();
    assert!(
        bot.wait(Duration::from_secs(2)).success(),
        "exit status 0 at the end of stdin"
    );
    expect_end(&bot, "end of stdin");

    let mut silent = Bot::start(); // no message at all
    silent.close_stdin();
    assert!(silent.wait(Duration::from_secs(2)).success());
}

#[test]
fn an_oversized_frame_ends_the_bot_with_an_error() {
    let mut bot = Bot::start();
    bot.send_vector("referee_hello");
    expect_hello(&bot);
    bot.send(&[0x01, 0x00, 0x00, 0x01]); // 16 MiB + 1: refused from the prefix
    let status = bot.wait(Duration::from_secs(2));
    assert!(!status.success(), "{status}");
    assert!(bot.stderr().contains("exceeds"));
}

#[test]
fn a_broken_frame_ends_the_bot_with_an_error() {
    for broken in [
        "bad_frame_duplicate_key",
        "bad_frame_invalid_utf8",
        "bad_frame_zero_length",
        "bad_frame_truncated_body",
    ] {
        let mut bot = Bot::start();
        bot.send_vector("referee_hello");
        expect_hello(&bot);
        bot.send_vector(broken);
        bot.close_stdin();
        let status = bot.wait(Duration::from_secs(2));
        assert!(!status.success(), "{broken}: {status}");
        expect_end(&bot, broken);
        let log = bot.stderr();
        assert!(log.contains("bad frame"), "{broken}: {log}");
    }
}

#[test]
fn another_protocol_is_refused() {
    let mut hello = json("referee_hello");
    if let Value::Map(entries) = &mut hello {
        for (k, v) in entries.iter_mut() {
            if k.as_str() == Some("protocol") {
                *v = Value::from(2);
            }
        }
    }
    let mut bot = Bot::start();
    bot.send(&frame(&encode_body(&hello)));
    let status = bot.wait(Duration::from_secs(2));
    assert!(!status.success(), "{status}");
    expect_end(&bot, "protocol 2");
    assert!(bot.stderr().contains("protocol"));
}

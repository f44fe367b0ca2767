#!/usr/bin/env bash
# Build the Java starter bot: compile src/main/java with plain javac against lib/*.jar
# into out/ (bot.toml's build step; also called by the project's scripts/build-bots.sh).
# Needs no network and no Maven: ./fetch.sh must have put msgpack-core in lib/ first.
# Does nothing when out/ is newer than every source; concurrent builds wait for each
# other (flock, where available).
set -euo pipefail
cd "$(dirname "$0")"
jar=lib/msgpack-core-0.9.8.jar
stamp=out/.built
up_to_date() {
    [[ -f "$stamp" && -f "$jar" ]] &&
        [[ -z "$(find src/main/java "$jar" build.sh -newer "$stamp" -print -quit)" ]]
}

up_to_date && exit 0
if [[ ! -f "$jar" ]]; then
    echo "example_bots/java: $jar is missing: run ./fetch.sh first (it needs the network once)." >&2
    exit 1
fi
if ! command -v javac >/dev/null 2>&1; then
    echo "example_bots/java: javac not found. Install a JDK 17 or later:" >&2
    echo "    sudo apt-get install openjdk-17-jdk-headless" >&2
    exit 1
fi
if command -v flock >/dev/null 2>&1; then
    exec 9<.
    flock 9
    up_to_date && exit 0 # another build did it while we waited
fi
# javac is itself a JVM: keep it small, so that it also builds under tight limits.
# The two -D are the JDK's defaults, given so that javac need not read
# conf/security/java.security: Debian links it to /etc/java-17-openjdk/, which a
# sandbox showing only part of /etc hides ("InternalError: Error loading java.security file").
rm -rf out.new
javac -J-Xmx256m -J-XX:+UseSerialGC -J-XX:TieredStopAtLevel=1 -J-XX:-UsePerfData \
    -J-Djdk.includeInExceptions= -J-Djdk.io.permissionsUseCanonicalPath=false \
    --release 17 -encoding UTF-8 -Xlint:all -Werror \
    -cp "$jar" -d out.new $(find src/main/java -name '*.java' | sort)
touch out.new/.built
chmod -R a+rX out.new # the sandbox runs bots as another user
# Swap the new classes in (a bot starting at this very moment may miss them once).
rm -rf out.old
if [[ -d out ]]; then mv out out.old; fi
mv out.new out
rm -rf out.old
echo "example_bots/java: built out/ (run: see bot.toml)"

#!/usr/bin/env bash
# Fetch the Java kit's dependencies WITH network, into this folder (the project's
# `make test` calls it before build.sh):
#   .m2/repository/   a Maven local repository: msgpack-core, JUnit 5 and the Maven
#                     plugins test.sh needs, so that `mvn -o test` works offline
#                     (about 50 MB);
#   lib/              msgpack-core's jar, which build.sh compiles the bot against
#                     and bot.toml's run puts on the class path.
# Nothing is written to ~/.m2. Quick when already done (pom.xml unchanged).
set -euo pipefail
cd "$(dirname "$0")"
stamp=.m2/fetched-pom.xml
jar=lib/msgpack-core-0.9.8.jar
up_to_date() { [[ -f "$jar" && -f "$stamp" ]] && cmp -s pom.xml "$stamp"; }

up_to_date && exit 0
if ! command -v mvn >/dev/null 2>&1; then
    echo "example_bots/java: mvn not found. Install Maven 3.6.3 or later and a JDK 17:" >&2
    echo "    sudo apt-get install maven openjdk-17-jdk-headless" >&2
    exit 1
fi
mkdir -p .m2
if command -v flock >/dev/null 2>&1; then
    exec 9<.
    flock 9
    up_to_date && exit 0 # another fetch did it while we waited
fi
# Debian's Maven 3.8 prints stray ESC[0m even in batch mode: strip them.
maven() {
    mvn -B -q --no-transfer-progress -Dmaven.repo.local="$PWD/.m2/repository" "$@" 2>&1 |
        sed -u 's/\x1b\[0m//g'
    return "${PIPESTATUS[0]}"
}
# Everything `mvn -o test` will need: dependencies, plugins and their dependencies.
maven org.apache.maven.plugins:maven-dependency-plugin:3.8.1:go-offline
# Surefire resolves its JUnit Platform provider only when it runs tests, which
# go-offline does not know: run one small test class once, online, to fetch it.
maven test -Dtest=StrategyTest -Dsurefire.failIfNoSpecifiedTests=false >/dev/null 2>&1 || true
provider=.m2/repository/org/apache/maven/surefire/surefire-junit-platform/3.5.2
if ! compgen -G "$provider/*.jar" >/dev/null; then
    echo "example_bots/java: could not fetch Surefire's JUnit provider; see:" >&2
    echo "    mvn -Dmaven.repo.local=.m2/repository test -Dtest=StrategyTest" >&2
    exit 1
fi
# The bot's one runtime dependency, for build.sh's javac and bot.toml's class path.
rm -rf lib
maven org.apache.maven.plugins:maven-dependency-plugin:3.8.1:copy-dependencies \
    -DincludeScope=runtime -DoutputDirectory=lib
[[ -f "$jar" ]] || { echo "example_bots/java: $jar is missing after the fetch" >&2; exit 1; }
chmod -R a+rX lib .m2 # the sandbox runs bots as another user
cp pom.xml "$stamp"
echo "example_bots/java: dependencies fetched into .m2/repository and lib/"

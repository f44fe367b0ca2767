#!/usr/bin/env bash
# Run the Java kit's own test suite: JUnit 5 through Maven Surefire, offline, with the
# Maven repository fetch.sh filled (.m2/repository in this folder; ~/.m2 is not used).
# Builds the bot first (./build.sh: quick when up to date), since BotTest starts it.
# Exit status 0 only when every test passes.
set -euo pipefail
cd "$(dirname "$0")"
if [[ ! -f .m2/fetched-pom.xml ]] || ! cmp -s pom.xml .m2/fetched-pom.xml; then
    echo "example_bots/java: the test dependencies are missing: run ./fetch.sh first." >&2
    exit 1
fi
./build.sh
status=0
# (Debian's Maven 3.8 prints stray ESC[0m even in batch mode: sed strips them.)
mvn -o -q -B -Dmaven.repo.local="$PWD/.m2/repository" test 2>&1 | sed -u 's/\x1b\[0m//g' || status=$?
# -q prints failures only: count what ran from Surefire's reports.
summary() {
    local tests=0 failures=0 errors=0 skipped=0 f
    for f in target/surefire-reports/TEST-*.xml; do
        [[ -f "$f" ]] || continue
        local head
        head=$(grep -m1 -o '<testsuite [^>]*>' "$f")
        tests=$((tests + $(sed -n 's/.* tests="\([0-9]*\)".*/\1/p' <<<"$head")))
        failures=$((failures + $(sed -n 's/.* failures="\([0-9]*\)".*/\1/p' <<<"$head")))
        errors=$((errors + $(sed -n 's/.* errors="\([0-9]*\)".*/\1/p' <<<"$head")))
        skipped=$((skipped + $(sed -n 's/.* skipped="\([0-9]*\)".*/\1/p' <<<"$head")))
    done
    echo "example_bots/java: $tests tests, $failures failures, $errors errors, $skipped skipped"
}
summary
exit "$status"

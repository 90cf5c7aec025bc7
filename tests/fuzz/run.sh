#!/usr/bin/env bash
# Runs one libFuzzer target for a bounded time: tests/fuzz/run.sh NAME SECONDS [libFuzzer flags]
# The seeds in tests/fuzz/corpus/NAME/ are copied into the scratch corpus build-fuzz/corpus/NAME/
# first; libFuzzer writes new inputs only there (never into the repository). A crash input goes
# to build-fuzz/artifacts/NAME/. Prints libFuzzer's final statistics; exits non-zero on a finding.
set -uo pipefail
name=$1
secs=$2
shift 2
root=build-fuzz
bin=$root/fuzz_$name
corpus=$root/corpus/$name
artifacts=$root/artifacts/$name
log=$root/logs/$name.log
mkdir -p "$corpus" "$artifacts" "$root/logs"
if [ -d "tests/fuzz/corpus/$name" ]; then cp -n "tests/fuzz/corpus/$name"/* "$corpus"/ 2>/dev/null; fi
extra=()
if [ -f "tests/fuzz/$name.dict" ]; then extra+=("-dict=tests/fuzz/$name.dict"); fi
echo "fuzz $name: ${secs}s, corpus $corpus, log $log"
start=$(date +%s)
"$bin" -max_total_time="$secs" -print_final_stats=1 -timeout=10 -rss_limit_mb=2048 \
  -artifact_prefix="$artifacts/" "${extra[@]}" "$@" "$corpus" >"$log" 2>&1
rc=$?
end=$(date +%s)
execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
cov=$(grep -E '^#[0-9]+[[:space:]]+(DONE|pulse|NEW|REDUCE)' "$log" | tail -1 |
  sed -n 's/.*cov: \([0-9]*\) ft: \([0-9]*\) corp: \([0-9]*\/[0-9a-zA-Z]*\).*/coverage \1, features \2, corpus \3/p')
echo "fuzz $name: exit $rc, $((end - start))s, ${execs:-?} executions, ${cov:-?}"
if [ $rc -ne 0 ]; then
  grep -E 'ERROR|SUMMARY|Test unit written|FAILED|assert|Assertion|deadly signal|timeout' "$log" | head -20
  echo "fuzz $name: FAILED (full log: $log)"
fi
exit $rc

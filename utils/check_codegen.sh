#!/bin/bash
# Checks properties of the optimised server binary that no functional test can see.
#  - The batch key prefetch (prefetch_batch, called by Client::run_batch; or run_batch itself
#    when the compiler inlines it there) must contain prefetch instructions. GCC deletes
#    calls to a function whose only effect is __builtin_prefetch (it counts as side-effect free),
#    which once removed the whole prefetch while every test still passed; see
#    HashTable::prefetch_bucket.
# Usage: utils/check_codegen.sh [binary]   (default src/keel-server)
set -euo pipefail
bin=${1:-src/keel-server}
case "$(uname -m)" in
  x86_64) insn='prefetch' ;;
  aarch64) insn='prfm' ;;
  *) echo "check_codegen: no check for $(uname -m), skipped"; exit 0 ;;
esac
count=$(objdump -d --no-show-raw-insn -C "$bin" |
        awk -v insn="$insn" '/^[0-9a-f]+ <.*>:$/ { inside = ($0 ~ /<keel::Client::run_batch\(\)>:$/ || $0 ~ /<keel::prefetch_batch\(.*\)>:$/) }
                             inside && $0 ~ insn { n++ } END { print n + 0 }')
if [ "$count" -eq 0 ]; then
  echo "check_codegen: keel::prefetch_batch / Client::run_batch have no $insn instruction (batch prefetch compiled away)"
  exit 1
fi
echo "check_codegen: prefetch_batch and run_batch have $count $insn instructions"

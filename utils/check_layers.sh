#!/usr/bin/env bash
# Checks every #include "dir/file.h" in src/ against the layer table of src/README.md:
# a layer may include only itself and the layers listed for it. Exit 1 on any violation.
set -euo pipefail
cd "$(dirname "$0")/.."

declare -A allowed=(
  [base]="base"
  [ds]="base ds"
  [protocol]="base protocol"
  [types]="base ds types"
  [keyspace]="base ds types keyspace"
  [persistence]="base ds types keyspace persistence"
  [scripting]="base protocol scripting"
  [commands]="base ds protocol types keyspace persistence scripting commands"
  [server]="base ds protocol types keyspace persistence scripting commands server"
  [main]="base ds protocol types keyspace persistence scripting commands server"
)

bad=0
while IFS= read -r file; do
  rel=${file#src/}
  layer=${rel%%/*}
  [ "$rel" = "main.cc" ] && layer=main
  if [ -z "${allowed[$layer]+x}" ]; then
    echo "check-layers: $file is in unknown layer '$layer' (add it to utils/check_layers.sh and src/README.md)"
    bad=1
    continue
  fi
  while IFS= read -r inc; do
    dep=${inc%%/*}
    case " ${allowed[$layer]} " in
      *" $dep "*) ;;
      *) echo "check-layers: $file includes \"$inc\": layer '$layer' may not include '$dep'"; bad=1 ;;
    esac
  done < <(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$file")
done < <(find src -name '*.h' -o -name '*.cc' | sort)

if [ "$bad" -ne 0 ]; then exit 1; fi
echo "check-layers: ok"

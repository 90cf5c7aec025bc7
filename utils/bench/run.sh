#!/usr/bin/env bash
# `make bench`: Keel vs Debian's redis-server side by side (see bench.py for the method).
set -euo pipefail
cd "$(dirname "$0")/../.."
exec /usr/bin/python3 utils/bench/bench.py "$@"

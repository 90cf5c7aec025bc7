#!/usr/bin/env bash
# Installs the Debian packages that Keel's build, tests and benchmarks need.
# `deps/install.sh fuzz` also installs clang 14 and its sanitizer/libFuzzer runtime for
# `make fuzz` (the other targets, `make test` included, do not need clang).
# Idempotent: does nothing when everything is present. As root it runs apt-get;
# otherwise it prints the exact command to run and fails.
set -euo pipefail

packages=(
  build-essential pkg-config
  libuv1-dev liburing-dev libjemalloc-dev liblua5.1-0-dev libssl-dev lua-cjson lua-bitop liblzf-dev
  tcl libgtest-dev
  redis-server redis-tools redis-sentinel nutcracker python3-redis
)
if [ "${1:-}" = fuzz ]; then
  packages+=(clang libclang-rt-14-dev)
fi

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
[ ${#missing[@]} -eq 0 ] && exit 0

cmd="apt-get install -y --no-install-recommends ${missing[*]}"
if [ "$(id -u)" -ne 0 ]; then
  echo "deps: missing Debian packages: ${missing[*]}" >&2
  echo "deps: run as root:  apt-get update && $cmd" >&2
  exit 1
fi
echo "deps: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >/dev/null
# shellcheck disable=SC2086
$cmd >/dev/null
# The Debian redis-server package starts a system service on 6379; Keel's `make run`
# wants that port, and the tests start their own reference servers when they need one.
# redis-sentinel (26379, watching 6379) and nutcracker (22121) start services too: the tests
# run their own.
for svc in redis-server redis-sentinel nutcracker; do
  if command -v systemctl >/dev/null 2>&1; then systemctl disable --now "$svc" >/dev/null 2>&1 || true; fi
  if [ -x "/etc/init.d/$svc" ]; then "/etc/init.d/$svc" stop >/dev/null 2>&1 || true; fi
done
exit 0

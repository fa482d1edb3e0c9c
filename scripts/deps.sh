#!/usr/bin/env bash
# make deps: installs every Debian and PyPI package a make target needs, and
# says what it installed. Idempotent: packages already present are left alone
# and nothing is fetched (no apt-get update) when all are there. Recipes only
# check for their tools; make check, make test and make demo run this first
# (through build/.deps-ok, remade when a list changes).
#
# The packages are listed per concern in scripts/deps/:
#   <concern>.apt   Debian packages, one per line
#   <concern>.pip   PyPI distributions, one per line (a requirement: name or name>=x)
# `#` starts a comment. A suite that needs more adds its own file (e.g.
# scripts/deps/nats.apt with `nats-server` and `libnats-dev`, scripts/deps/nats.pip
# with `nats-py`), and nothing else: every *.apt and *.pip file is read.
set -euo pipefail
cd "$(dirname "$0")/deps"
PYTHON=${PYTHON:-python3}
words() { sed -e 's/#.*//' "$@" 2>/dev/null | tr -s ' \t' '\n\n' | sed '/^$/d' | sort -u; }
shopt -s nullglob
apt_files=(*.apt); pip_files=(*.pip)
apt_pkgs=$(words "${apt_files[@]}"); pip_reqs=$(words "${pip_files[@]}")

# Debian: what dpkg does not list as installed.
missing=()
for p in $apt_pkgs; do
  dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed$' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "deps: installing (apt): ${missing[*]}"
  if [ "$(id -u)" = 0 ]; then SUDO=(); else SUDO=(sudo); fi
  # Other apt runs may hold the locks: dpkg's lock is waited for by apt itself,
  # the lists' lock (apt-get update) by retrying.
  for i in $(seq 1 30); do
    "${SUDO[@]}" apt-get -o DPkg::Lock::Timeout=600 update -qq && break
    [ "$i" = 30 ] && { echo "deps: apt-get update failed" >&2; exit 1; }
    sleep 10
  done
  DEBIAN_FRONTEND=noninteractive "${SUDO[@]}" apt-get -o DPkg::Lock::Timeout=600 install -y -qq \
    --no-install-recommends "${missing[@]}" >/dev/null
fi

# PyPI: what importlib.metadata cannot find in $PYTHON's environment (with the
# version the requirement asks for, when it asks).
pip_missing=$("$PYTHON" - $pip_reqs <<'PY'
import re, sys
from importlib import metadata
def parts(v):
    return tuple(int(x) for x in re.findall(r"\d+", v)[:3])
for req in sys.argv[1:]:
    m = re.match(r"^([A-Za-z0-9_.\-\[\]]+?)\s*(?:>=\s*([\w.]+))?$", req)
    name = re.sub(r"\[.*\]", "", m.group(1)) if m else req
    try:
        have = metadata.version(name)
    except metadata.PackageNotFoundError:
        print(req); continue
    if m and m.group(2) and parts(have) < parts(m.group(2)):
        print(req)
PY
)
if [ -n "$pip_missing" ]; then
  echo "deps: installing (pip, $("$PYTHON" -c 'import sys; print(sys.executable)')):" $pip_missing
  extra=()
  # A Debian-managed interpreter refuses pip installs unless told (PEP 668).
  if "$PYTHON" -c 'import os, sys, sysconfig; sys.exit(not os.path.exists(os.path.join(sysconfig.get_path("stdlib"), "EXTERNALLY-MANAGED")))'; then
    extra=(--break-system-packages)
  fi
  "$PYTHON" -m pip install -q --disable-pip-version-check "${extra[@]}" $pip_missing
fi

n_apt=$(echo "$apt_pkgs" | sed '/^$/d' | wc -l); n_pip=$(echo "$pip_reqs" | sed '/^$/d' | wc -l)
if [ ${#missing[@]} -eq 0 ] && [ -z "$pip_missing" ]; then
  echo "deps: all $n_apt Debian and $n_pip PyPI packages present"
else
  echo "deps: installed ${#missing[@]} Debian and $(echo "$pip_missing" | sed '/^$/d' | wc -l) PyPI packages; all $n_apt + $n_pip present"
fi

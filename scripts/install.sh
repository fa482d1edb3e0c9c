#!/usr/bin/env bash
# Installs (or uninstalls) the built library, its debug file, headers, ripple.pc,
# the CMake package, man pages, ripple.supp, behaviour.md and the ripple-trace
# command (with its man page). The one copy of the
# install layout: `make install`/`make uninstall`, the staged install of
# `make stage`, `make check-install` and pkg/mkdeb.sh all call it, so no rule
# runs a recursive make.
#
#   scripts/install.sh install|uninstall [name=value ...]
#   scripts/install.sh install-nats|uninstall-nats [name=value ...]   (libripple-nats)
#
# Directory settings come only from the arguments (GNU names: DESTDIR prefix
# exec_prefix bindir libdir includedir pkgconfigdir cmakedir datarootdir mandir
# man1dir man3dir docdir rippledatadir debugdir, and INSTALL, LDCONFIG); whatever is not given
# gets the GNU default below (the Makefile's defaults; prefix is required).
# What was built comes from the environment: VERSION MAJOR LIBNAME SONAME
# REALNAME DIST (stripped library and debug/) MANOUT (man pages) HEADERS
# (installed into includedir; the first is ripple.h) PYTHON.
set -euo pipefail
action=${1:?install or uninstall}; shift
unset DESTDIR prefix exec_prefix bindir libdir includedir pkgconfigdir cmakedir datarootdir mandir man1dir man3dir \
      docdir rippledatadir debugdir INSTALL LDCONFIG
for kv in "$@"; do
  case "$kv" in
    DESTDIR=*|prefix=*|exec_prefix=*|bindir=*|libdir=*|includedir=*|pkgconfigdir=*|cmakedir=*|datarootdir=*|\
    mandir=*|man1dir=*|man3dir=*|docdir=*|rippledatadir=*|debugdir=*|INSTALL=*|LDCONFIG=*) declare "$kv" ;;
    *) echo "install.sh: unknown setting $kv" >&2; exit 2 ;;
  esac
done
: "${VERSION:?}" "${MAJOR:?}" "${LIBNAME:?}" "${SONAME:?}" "${REALNAME:?}" "${DIST:?}" "${MANOUT:?}" "${HEADERS:?}"
HEADER=${HEADERS%% *}
PYTHON=${PYTHON:-python3}
DESTDIR=${DESTDIR-}
prefix=${prefix:?install.sh: prefix= is required}
exec_prefix=${exec_prefix:-$prefix}
bindir=${bindir:-$exec_prefix/bin}
libdir=${libdir:-$exec_prefix/lib}
includedir=${includedir:-$prefix/include}
pkgconfigdir=${pkgconfigdir:-$libdir/pkgconfig}
cmakedir=${cmakedir:-$libdir/cmake/Ripple}
datarootdir=${datarootdir:-$prefix/share}
mandir=${mandir:-$datarootdir/man}
man1dir=${man1dir:-$mandir/man1}
man3dir=${man3dir:-$mandir/man3}
docdir=${docdir:-$datarootdir/doc/ripple}
rippledatadir=${rippledatadir:-$datarootdir/ripple}
# Separate debug info goes where gdb and valgrind look for it by build id
# (<debugdir>/.build-id/xx/rest.debug), as in Debian's -dbgsym packages.
debugdir=${debugdir:-$prefix/lib/debug}
INSTALL=${INSTALL:-install}
LDCONFIG=${LDCONFIG-ldconfig}
D=$DESTDIR
build_id() { readelf -n "$1" | sed -n 's/^.*Build ID: *\([0-9a-f]*\).*$/\1/p'; }

case "$action" in
install)
  $INSTALL -d "$D$libdir" "$D$includedir" "$D$pkgconfigdir" "$D$cmakedir" "$D$man3dir" "$D$rippledatadir" "$D$docdir"
  $INSTALL -m 0644 "$DIST/$REALNAME" "$D$libdir/$REALNAME"
  ln -sf "$REALNAME" "$D$libdir/$SONAME"
  ln -sf "$SONAME" "$D$libdir/$LIBNAME"
  (cd "$DIST/debug" && find .build-id -name '*.debug') | while read -r f; do
    $INSTALL -D -m 0644 "$DIST/debug/$f" "$D$debugdir/$f"; done
  $INSTALL -m 0644 $HEADERS "$D$includedir/"
  sed -e "s|@PREFIX@|$prefix|g" -e "s|@LIBDIR@|$libdir|g" -e "s|@INCLUDEDIR@|$includedir|g" \
      -e "s|@VERSION@|$VERSION|g" pkg/ripple.pc.in > "$D$pkgconfigdir/ripple.pc"
  chmod 0644 "$D$pkgconfigdir/ripple.pc"
  librel=$(realpath -m --relative-to="$prefix" "$libdir"); increl=$(realpath -m --relative-to="$prefix" "$includedir")
  up=$(realpath -m --relative-to="$cmakedir" "$prefix")
  sed -e "s|@LIBREL@|$librel|g" -e "s|@INCLUDEREL@|$increl|g" -e "s|@PREFIX_FROM_CMAKEDIR@|$up|g" \
      -e "s|@VERSION@|$VERSION|g" -e "s|@MAJOR@|$MAJOR|g" pkg/RippleConfig.cmake.in > "$D$cmakedir/RippleConfig.cmake"
  sed -e "s|@VERSION@|$VERSION|g" -e "s|@MAJOR@|$MAJOR|g" \
      pkg/RippleConfigVersion.cmake.in > "$D$cmakedir/RippleConfigVersion.cmake"
  chmod 0644 "$D$cmakedir/RippleConfig.cmake" "$D$cmakedir/RippleConfigVersion.cmake"
  for f in "$MANOUT"/*.3; do
    if [ -L "$f" ]; then ln -sf "$(readlink "$f")" "$D$man3dir/${f##*/}"
    else $INSTALL -m 0644 "$f" "$D$man3dir/"; fi
  done
  $INSTALL -m 0644 pkg/ripple.supp "$D$rippledatadir/ripple.supp"
  $INSTALL -m 0644 docs/behaviour.md "$D$docdir/behaviour.md"
  $INSTALL -d "$D$bindir" "$D$man1dir"
  $INSTALL -m 0755 tools/ripple-trace "$D$bindir/ripple-trace"
  $INSTALL -m 0644 tools/ripple-trace.1 "$D$man1dir/ripple-trace.1"
  # Refresh the loader cache for a real install as root. No directory argument:
  # that would add $libdir to the system cache even when it is not a configured
  # library directory (a build tree, a staging prefix).
  if [ -z "$D" ] && [ -n "$LDCONFIG" ] && [ "$(id -u)" = 0 ] && command -v "$LDCONFIG" >/dev/null; then
    "$LDCONFIG" 2>/dev/null || true; fi
  ;;
uninstall)
  # The debug file is found through the installed library's build id, so it is
  # removed first; directories go only when empty (they may be shared).
  lib=$D$libdir/$REALNAME
  if [ -f "$lib" ]; then id=$(build_id "$lib")
    if [ -n "$id" ]; then rm -f "$D$debugdir/.build-id/${id:0:2}/${id:2}.debug"
      rmdir --ignore-fail-on-non-empty "$D$debugdir/.build-id/${id:0:2}" "$D$debugdir/.build-id" "$D$debugdir" 2>/dev/null || true; fi
  fi
  rm -f "$D$libdir/$REALNAME" "$D$libdir/$SONAME" "$D$libdir/$LIBNAME" \
        "$D$pkgconfigdir/ripple.pc" \
        "$D$cmakedir/RippleConfig.cmake" "$D$cmakedir/RippleConfigVersion.cmake" \
        "$D$rippledatadir/ripple.supp" "$D$docdir/behaviour.md" \
        "$D$bindir/ripple-trace" "$D$man1dir/ripple-trace.1"
  for h in $HEADERS; do rm -f "$D$includedir/${h##*/}"; done
  names=$("$PYTHON" pkg/manpages.py "$HEADER" --list)
  if cd "$D$man3dir" 2>/dev/null; then rm -f $names; cd - >/dev/null; fi
  rmdir "$D$cmakedir" "$D$rippledatadir" "$D$docdir" "$D$man1dir" 2>/dev/null || true
  ;;
# ---- libripple-nats (mk/nats.mk): install-nats / uninstall-nats, beside the
# above. From the environment: NATS_LIB (the built library), NATS_LIBNAME,
# NATS_SONAME, NATS_REALNAME, NATS_MANOUT (its man pages), NATS_HEADER.
install-nats)
  : "${NATS_LIB:?}" "${NATS_LIBNAME:?}" "${NATS_SONAME:?}" "${NATS_REALNAME:?}" "${NATS_MANOUT:?}" "${NATS_HEADER:?}"
  $INSTALL -d "$D$libdir" "$D$includedir" "$D$pkgconfigdir" "$D$cmakedir" "$D$man3dir"
  objcopy --strip-unneeded --remove-section=.comment "$NATS_LIB" "$D$libdir/$NATS_REALNAME"
  chmod 0644 "$D$libdir/$NATS_REALNAME"
  ln -sf "$NATS_REALNAME" "$D$libdir/$NATS_SONAME"
  ln -sf "$NATS_SONAME" "$D$libdir/$NATS_LIBNAME"
  $INSTALL -m 0644 "$NATS_HEADER" bindings/cpp/ripple_nats.hpp "$D$includedir/"
  sed -e "s|@PREFIX@|$prefix|g" -e "s|@LIBDIR@|$libdir|g" -e "s|@INCLUDEDIR@|$includedir|g" \
      -e "s|@VERSION@|$VERSION|g" pkg/ripple-nats.pc.in > "$D$pkgconfigdir/ripple-nats.pc"
  librel=$(realpath -m --relative-to="$prefix" "$libdir"); increl=$(realpath -m --relative-to="$prefix" "$includedir")
  up=$(realpath -m --relative-to="$cmakedir" "$prefix")
  sed -e "s|@LIBREL@|$librel|g" -e "s|@INCLUDEREL@|$increl|g" -e "s|@PREFIX_FROM_CMAKEDIR@|$up|g" \
      -e "s|@VERSION@|$VERSION|g" -e "s|@MAJOR@|$MAJOR|g" pkg/Ripple-nats.cmake.in > "$D$cmakedir/Ripple-nats.cmake"
  chmod 0644 "$D$pkgconfigdir/ripple-nats.pc" "$D$cmakedir/Ripple-nats.cmake"
  for f in "$NATS_MANOUT"/*.3; do
    if [ -L "$f" ]; then ln -sf "$(readlink "$f")" "$D$man3dir/${f##*/}"
    else $INSTALL -m 0644 "$f" "$D$man3dir/"; fi
  done
  if [ -z "$D" ] && [ -n "$LDCONFIG" ] && [ "$(id -u)" = 0 ] && command -v "$LDCONFIG" >/dev/null; then
    "$LDCONFIG" 2>/dev/null || true; fi
  ;;
uninstall-nats)
  : "${NATS_LIBNAME:?}" "${NATS_SONAME:?}" "${NATS_REALNAME:?}" "${NATS_HEADER:?}"
  rm -f "$D$libdir/$NATS_REALNAME" "$D$libdir/$NATS_SONAME" "$D$libdir/$NATS_LIBNAME" \
        "$D$includedir/${NATS_HEADER##*/}" "$D$includedir/ripple_nats.hpp" "$D$pkgconfigdir/ripple-nats.pc" "$D$cmakedir/Ripple-nats.cmake"
  names=$("$PYTHON" pkg/manpages.py "$NATS_HEADER" --list --name ripple-nats)
  if cd "$D$man3dir" 2>/dev/null; then rm -f $names; cd - >/dev/null; fi
  rmdir "$D$cmakedir" 2>/dev/null || true
  ;;
*) echo "install.sh: $action: install, uninstall, install-nats or uninstall-nats" >&2; exit 2 ;;
esac

#!/usr/bin/env bash
# Builds the Debian packages of libripple-nats with dpkg-deb, from
# scripts/install.sh install-nats into a staging tree (called by `make
# deb-nats`; the variables come from the Makefile and mk/nats.mk):
#   libripple-nats0     the library: libripple-nats.so.<VERSION> and its SONAME link
#   libripple-nats-dev  ripple_nats.h, the .so link, ripple-nats.pc, the CMake
#                       component Ripple-nats.cmake, man pages
# The same shared-library policy as pkg/mkdeb.sh: the runtime is named after
# the SONAME, carries shlibs and symbols and an ldconfig trigger, its Depends
# come from dpkg-shlibdeps (libripple0 through a shlibs.local entry, libnats
# from the system), and -dev depends on exactly the same runtime version and
# on libripple-dev and libnats-dev.
set -euo pipefail
: "${VERSION:?}" "${MAJOR:?}" "${NATS_SONAME:?}" "${NATS_REALNAME:?}" "${DEBDIR:?}" "${WORK:?}" "${NATS_LIB:?}"

source pkg/deb/lib.sh
deb_setup
RUNTIME="libripple-nats$MAJOR"
DEV=libripple-nats-dev
bash "$SRCDIR/scripts/install.sh" install-nats DESTDIR="$ROOT" prefix=/usr libdir="/usr/lib/$MA" LDCONFIG= >/dev/null

move "$RUNTIME" "usr/lib/$MA/$NATS_REALNAME" "usr/lib/$MA/$NATS_SONAME"
move "$DEV" usr/include "usr/lib/$MA/libripple-nats.so" "usr/lib/$MA/pkgconfig" "usr/lib/$MA/cmake" usr/share/man
nothing_left
compress_man "$DEV"
doc_files "make deb-nats" "$RUNTIME" "$DEV"
source_package "make deb-nats" "$RUNTIME" "$DEV"
# libripple is not installed on the build machine: say which package has it.
echo "libripple $MAJOR libripple$MAJOR (>= $VERSION)" > "$WORK/src/debian/shlibs.local"

lib="$WORK/$RUNTIME/usr/lib/$MA/$NATS_REALNAME"
depends=$(cd "$WORK/src" && dpkg-shlibdeps -O -l"$(dirname "$NATS_LIB")" -e"$lib" 2>/dev/null | sed -n 's/^shlibs:Depends=//p')
case "$depends" in *libripple$MAJOR*libnats*|*libnats*libripple$MAJOR*) ;; *)
    echo "dpkg-shlibdeps: unexpected dependencies: $depends"; exit 1;; esac

mkdir -p "$WORK/$RUNTIME/DEBIAN"
(cd "$WORK/src" && dpkg-gensymbols -q -c0 -p"$RUNTIME" -v"$VERSION" -P"$WORK/$RUNTIME" -e"$lib" \
    -O"$WORK/$RUNTIME/DEBIAN/symbols")
sed -i "1a * Build-Depends-Package: $DEV" "$WORK/$RUNTIME/DEBIAN/symbols"
echo "libripple-nats $MAJOR $RUNTIME (>= $VERSION)" > "$WORK/$RUNTIME/DEBIAN/shlibs"
echo "activate-noawait ldconfig" > "$WORK/$RUNTIME/DEBIAN/triggers"

control "$RUNTIME" "Multi-Arch: same" "Depends: $depends" "Section: libs" "Priority: optional" \
    "Description: Ripple signals through NATS and JetStream (runtime)" \
    " Ripple is a reactive runtime with ReactiveCocoa's semantics, exported as a" \
    " plain C library. libripple-nats carries its signals across processes and" \
    " machines through a NATS server: subjects, queue groups, request/reply, and" \
    " JetStream streams that are persisted, replicated and replayable, with" \
    " MessagePack payloads any NATS client can read." \
    " ." \
    " This package contains the shared library."
control "$DEV" "Multi-Arch: same" "Depends: $RUNTIME (= $DEBVER), libripple-dev (>= $VERSION), libnats-dev" \
    "Section: libdevel" "Priority: optional" \
    "Description: Ripple signals through NATS and JetStream (development files)" \
    " Ripple is a reactive runtime with ReactiveCocoa's semantics, exported as a" \
    " plain C library. libripple-nats carries its signals across processes and" \
    " machines through a NATS server." \
    " ." \
    " This package contains the C header, the pkg-config file, the CMake" \
    " component (find_package(Ripple COMPONENTS nats)) and man pages."

build_debs "$RUNTIME" "$DEV"

#!/usr/bin/env bash
# Builds the Debian packages of Ripple with dpkg-deb, from an install
# (scripts/install.sh) into a staging tree (called by
# `make deb` and `make check-deb`; the variables come from mk/package.mk):
#   libripple0         the runtime: libripple.so.<VERSION> and its SONAME link
#   libripple-dev      headers (C, C++, the event-loop adapters), the .so link, ripple.pc, the CMake
#                      package, man pages, ripple.supp, behaviour.md
#   libripple0-dbgsym  the separate debug info, under /usr/lib/debug/.build-id
#   ripple-tools       ripple-trace (Python, Architecture: all) and its man page
# Debian's shared-library policy: the runtime package is named after the SONAME,
# carries shlibs and symbols files and an ldconfig trigger, and its Depends come
# from dpkg-shlibdeps; -dev depends on exactly the same runtime version.
set -euo pipefail
: "${VERSION:?}" "${MAJOR:?}" "${SONAME:?}" "${REALNAME:?}" "${DEBDIR:?}" "${WORK:?}"

source pkg/deb/lib.sh
deb_setup
RUNTIME="libripple$MAJOR"
bash "$SRCDIR/scripts/install.sh" install DESTDIR="$ROOT" prefix=/usr libdir="/usr/lib/$MA" \
    docdir=/usr/share/doc/libripple-dev LDCONFIG= >/dev/null

# Files of each package, moved out of the staged install.
move "$RUNTIME" "usr/lib/$MA/$REALNAME" "usr/lib/$MA/$SONAME"
move ripple-tools usr/bin usr/share/man/man1
# Debian's scripts name their interpreter, not env.
sed -i '1s|^#!/usr/bin/env python3$|#!/usr/bin/python3|' "$WORK/ripple-tools/usr/bin/ripple-trace"
move libripple-dev usr/include "usr/lib/$MA/libripple.so" "usr/lib/$MA/pkgconfig" "usr/lib/$MA/cmake" \
    usr/share/man usr/share/ripple usr/share/doc/libripple-dev
move "$RUNTIME-dbgsym" usr/lib/debug
nothing_left
compress_man libripple-dev
gzip -9n "$WORK/ripple-tools/usr/share/man/man1/ripple-trace.1"
doc_files "make deb" "$RUNTIME" libripple-dev ripple-tools
mkdir -p "$WORK/$RUNTIME-dbgsym/usr/share/doc"
ln -s "$RUNTIME" "$WORK/$RUNTIME-dbgsym/usr/share/doc/$RUNTIME-dbgsym"

# A minimal source package description, which dpkg-shlibdeps and
# dpkg-gensymbols read.
source_package "make deb" "$RUNTIME" libripple-dev

lib="$WORK/$RUNTIME/usr/lib/$MA/$REALNAME"
depends=$(cd "$WORK/src" && dpkg-shlibdeps -O -e"$lib" 2>/dev/null | sed -n 's/^shlibs:Depends=//p')
[ -n "$depends" ] || { echo "dpkg-shlibdeps found no dependencies"; exit 1; }

mkdir -p "$WORK/$RUNTIME/DEBIAN"
# symbols: pkg/deb/symbols is the record of when each function appeared;
# dpkg-gensymbols fails when one has disappeared and dates new ones $VERSION.
sed -e "s/@RUNTIME@/$RUNTIME/" -e "s/@SONAME@/$SONAME/" "$SRCDIR/pkg/deb/symbols" > "$WORK/symbols.base"
(cd "$WORK/src" && dpkg-gensymbols -q -c1 -p"$RUNTIME" -v"$VERSION" -P"$WORK/$RUNTIME" -e"$lib" \
    -I"$WORK/symbols.base" -O"$WORK/$RUNTIME/DEBIAN/symbols")
echo "libripple $MAJOR $RUNTIME (>= $VERSION)" > "$WORK/$RUNTIME/DEBIAN/shlibs"
echo "activate-noawait ldconfig" > "$WORK/$RUNTIME/DEBIAN/triggers"

control "$RUNTIME" "Multi-Arch: same" "Depends: $depends" "Section: libs" "Priority: optional" \
    "Description: reactive signals and operators with a C API (runtime)" \
    " Ripple is a reactive runtime with ReactiveCocoa's semantics: signals," \
    " subscribers, disposables, subjects, multicast connections, operators and" \
    " schedulers, written in Swift and exported as a plain C library. The Swift" \
    " runtime is linked in, so programs need no Swift installation." \
    " ." \
    " This package contains the shared library."
control libripple-dev "Multi-Arch: same" "Depends: $RUNTIME (= $DEBVER)" \
    "Suggests: libglib2.0-dev, libuv1-dev, libevent-dev" "Section: libdevel" "Priority: optional" \
    "Description: reactive signals and operators with a C API (development files)" \
    " Ripple is a reactive runtime with ReactiveCocoa's semantics: signals," \
    " subscribers, disposables, subjects, multicast connections, operators and" \
    " schedulers, written in Swift and exported as a plain C library." \
    " ." \
    " This package contains the C header, the header-only C++ binding, the" \
    " header-only adapters that drive a run loop from GLib, libuv or libevent," \
    " the pkg-config and CMake package files, man pages and a valgrind" \
    " suppression file."
# ripple-tools: arch-independent; the command reads what any libripple writes.
ARCH_SAVED=$ARCH; ARCH=all
control ripple-tools "Depends: python3" "Recommends: libripple-dev" "Section: devel" "Priority: optional" \
    "Description: reactive signals and operators with a C API (tools)" \
    " Ripple is a reactive runtime with ReactiveCocoa's semantics, exported as a" \
    " plain C library." \
    " ." \
    " This package contains ripple-trace, which draws a trace written by a Ripple" \
    " program (RIPPLE_TRACE=file, rpl_trace_write) as a timeline in one HTML page."
ARCH=$ARCH_SAVED
buildid=$(readelf -n "$lib" | sed -n 's/^.*Build ID: *\([0-9a-f]*\).*$/\1/p')
control "$RUNTIME-dbgsym" "Multi-Arch: same" "Depends: $RUNTIME (= $DEBVER)" "Section: debug" "Priority: optional" \
    "Auto-Built-Package: debug-symbols" "Build-Ids: $buildid" \
    "Description: debug symbols for $RUNTIME"

build_debs "$RUNTIME" libripple-dev "$RUNTIME-dbgsym" ripple-tools

#!/usr/bin/env bash
# Builds the Debian packages of libripple-nats with dpkg-deb, from
# `make install-nats` into a staging tree (called by `make deb-nats`; the
# variables come from the Makefile and mk/nats.mk):
#   libripple-nats0     the library: libripple-nats.so.<VERSION> and its SONAME link
#   libripple-nats-dev  ripple_nats.h, the .so link, ripple-nats.pc, the CMake
#                       component Ripple-nats.cmake, man pages
# The same shared-library policy as pkg/mkdeb.sh: the runtime is named after
# the SONAME, carries shlibs and symbols and an ldconfig trigger, its Depends
# come from dpkg-shlibdeps (libripple0 through a shlibs.local entry, libnats
# from the system), and -dev depends on exactly the same runtime version and
# on libripple-dev and libnats-dev.
set -euo pipefail
: "${VERSION:?}" "${MAJOR:?}" "${NATS_SONAME:?}" "${NATS_REALNAME:?}" "${DEBDIR:?}" "${WORK:?}" "${LIBDIR_BUILD:?}" "${MAKE:=make}"

REV=1
DEBVER="$VERSION-$REV"
ARCH=$(dpkg-architecture -qDEB_HOST_ARCH)
MA=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
RUNTIME="libripple-nats$MAJOR"
DEV=libripple-nats-dev
SRCDIR=$(pwd)
MAINT=${DEB_MAINTAINER:?set DEB_MAINTAINER='Name <address>'}
EPOCH=${SOURCE_DATE_EPOCH:-$(git -C "$SRCDIR" log -1 --format=%ct 2>/dev/null || date +%s)}
export SOURCE_DATE_EPOCH=$EPOCH

rm -rf "$WORK" && mkdir -p "$WORK" "$DEBDIR"
ROOT="$WORK/root"
$MAKE --no-print-directory install-nats DESTDIR="$ROOT" prefix=/usr libdir="/usr/lib/$MA" LDCONFIG= >/dev/null

move() { # move PKG PATH...
    local pkg=$1; shift
    for p in "$@"; do
        mkdir -p "$WORK/$pkg/$(dirname "$p")"
        mv "$ROOT/$p" "$WORK/$pkg/$p"
    done
}
move "$RUNTIME" "usr/lib/$MA/$NATS_REALNAME" "usr/lib/$MA/$NATS_SONAME"
move "$DEV" usr/include "usr/lib/$MA/libripple-nats.so" "usr/lib/$MA/pkgconfig" "usr/lib/$MA/cmake" usr/share/man
left=$(find "$ROOT" -type f -o -type l)
[ -z "$left" ] || { echo "make deb-nats: installed files in no package:"; echo "$left"; exit 1; }

(cd "$WORK/$DEV/usr/share/man/man3" && for f in *.3; do
    if [ -L "$f" ]; then ln -s "$(readlink "$f").gz" "$f.gz" && rm "$f"; else gzip -9n "$f"; fi
done)

date_r=$(date -R -u -d "@$EPOCH")
for pkg in "$RUNTIME" "$DEV"; do
    doc="$WORK/$pkg/usr/share/doc/$pkg"
    mkdir -p "$doc"
    sed -e "s|@YEAR@|$(date -u -d "@$EPOCH" +%Y)|" "$SRCDIR/pkg/deb/copyright" > "$doc/copyright"
    printf 'ripple (%s) unstable; urgency=medium\n\n  * Built from the Ripple source tree with make deb-nats.\n\n -- %s  %s\n' \
        "$DEBVER" "$MAINT" "$date_r" | gzip -9n > "$doc/changelog.Debian.gz"
done

mkdir -p "$WORK/src/debian"
printf 'Source: ripple\nMaintainer: %s\n\nPackage: %s\nArchitecture: any\n\nPackage: %s\nArchitecture: any\n' \
    "$MAINT" "$RUNTIME" "$DEV" > "$WORK/src/debian/control"
printf 'ripple (%s) unstable; urgency=medium\n\n  * make deb-nats\n\n -- %s  %s\n' "$DEBVER" "$MAINT" "$date_r" \
    > "$WORK/src/debian/changelog"
# libripple is not installed on the build machine: say which package has it.
echo "libripple $MAJOR libripple$MAJOR (>= $VERSION)" > "$WORK/src/debian/shlibs.local"

lib="$WORK/$RUNTIME/usr/lib/$MA/$NATS_REALNAME"
depends=$(cd "$WORK/src" && dpkg-shlibdeps -O -l"$LIBDIR_BUILD" -e"$lib" 2>/dev/null | sed -n 's/^shlibs:Depends=//p')
case "$depends" in *libripple$MAJOR*libnats*|*libnats*libripple$MAJOR*) ;; *)
    echo "dpkg-shlibdeps: unexpected dependencies: $depends"; exit 1;; esac

mkdir -p "$WORK/$RUNTIME/DEBIAN"
(cd "$WORK/src" && dpkg-gensymbols -q -c0 -p"$RUNTIME" -v"$VERSION" -P"$WORK/$RUNTIME" -e"$lib" \
    -O"$WORK/$RUNTIME/DEBIAN/symbols")
sed -i "1a * Build-Depends-Package: $DEV" "$WORK/$RUNTIME/DEBIAN/symbols"
echo "libripple-nats $MAJOR $RUNTIME (>= $VERSION)" > "$WORK/$RUNTIME/DEBIAN/shlibs"
echo "activate-noawait ldconfig" > "$WORK/$RUNTIME/DEBIAN/triggers"

size() { du -sk --exclude=DEBIAN "$1" | cut -f1; }
control() { # control PKG FIELDS...
    local name=$1; shift
    mkdir -p "$WORK/$name/DEBIAN"
    {
        printf 'Package: %s\nSource: ripple\nVersion: %s\nArchitecture: %s\nMaintainer: %s\nInstalled-Size: %s\n' \
            "$name" "$DEBVER" "$ARCH" "$MAINT" "$(size "$WORK/$name")"
        printf '%s\n' "$@"
    } > "$WORK/$name/DEBIAN/control"
}
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

debs=()
for pkg in "$RUNTIME" "$DEV"; do
    (cd "$WORK/$pkg" && find usr -type f -printf '%P\n' | LC_ALL=C sort | sed 's|^|usr/|' | xargs md5sum > DEBIAN/md5sums)
    find "$WORK/$pkg" -type d -exec chmod 0755 {} +
    chmod 0644 "$WORK/$pkg"/DEBIAN/*
    deb="$DEBDIR/${pkg}_${DEBVER}_${ARCH}.deb"
    dpkg-deb --root-owner-group -Zxz --build "$WORK/$pkg" "$deb" >/dev/null
    debs+=("$deb")
done
printf '%s\n' "${debs[@]}"

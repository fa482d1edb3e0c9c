#!/usr/bin/env bash
# Builds the Debian packages of Ripple with dpkg-deb, from an install
# (scripts/install.sh) into a staging tree (called by
# `make deb` and `make check-deb`; the variables come from mk/package.mk):
#   libripple0         the runtime: libripple.so.<VERSION> and its SONAME link
#   libripple-dev      headers (C and C++), the .so link, ripple.pc, the CMake
#                      package, man pages, ripple.supp, behaviour.md
#   libripple0-dbgsym  the separate debug info, under /usr/lib/debug/.build-id
# Debian's shared-library policy: the runtime package is named after the SONAME,
# carries shlibs and symbols files and an ldconfig trigger, and its Depends come
# from dpkg-shlibdeps; -dev depends on exactly the same runtime version.
set -euo pipefail
: "${VERSION:?}" "${MAJOR:?}" "${SONAME:?}" "${REALNAME:?}" "${DEBDIR:?}" "${WORK:?}"

REV=1
DEBVER="$VERSION-$REV"
ARCH=$(dpkg-architecture -qDEB_HOST_ARCH)
MA=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
RUNTIME="libripple$MAJOR"
SRCDIR=$(pwd)
MAINT=${DEB_MAINTAINER:?set DEB_MAINTAINER='Name <address>'}
# Reproducible dates: the last commit's, unless SOURCE_DATE_EPOCH says otherwise.
EPOCH=${SOURCE_DATE_EPOCH:-$(git -C "$SRCDIR" log -1 --format=%ct 2>/dev/null || date +%s)}
export SOURCE_DATE_EPOCH=$EPOCH

rm -rf "$WORK" && mkdir -p "$WORK" "$DEBDIR"
ROOT="$WORK/root"
bash "$SRCDIR/scripts/install.sh" install DESTDIR="$ROOT" prefix=/usr libdir="/usr/lib/$MA" \
    docdir=/usr/share/doc/libripple-dev LDCONFIG= >/dev/null

# Files of each package, moved out of the staged install.
move() { # move PKG PATH...
    local pkg=$1; shift
    for p in "$@"; do
        mkdir -p "$WORK/$pkg/$(dirname "$p")"
        mv "$ROOT/$p" "$WORK/$pkg/$p"
    done
}
move "$RUNTIME" "usr/lib/$MA/$REALNAME" "usr/lib/$MA/$SONAME"
move libripple-dev usr/include "usr/lib/$MA/libripple.so" "usr/lib/$MA/pkgconfig" "usr/lib/$MA/cmake" \
    usr/share/man usr/share/ripple usr/share/doc/libripple-dev
move "$RUNTIME-dbgsym" usr/lib/debug
left=$(find "$ROOT" -type f -o -type l)
[ -z "$left" ] || { echo "make deb: installed files in no package:"; echo "$left"; exit 1; }

# Man pages are compressed in Debian packages; their aliases stay symlinks.
(cd "$WORK/libripple-dev/usr/share/man/man3" && for f in *.3; do
    if [ -L "$f" ]; then ln -s "$(readlink "$f").gz" "$f.gz" && rm "$f"; else gzip -9n "$f"; fi
done)

# /usr/share/doc/<package>: copyright and changelog in every package.
date_r=$(date -R -u -d "@$EPOCH")
for pkg in "$RUNTIME" libripple-dev; do
    doc="$WORK/$pkg/usr/share/doc/$pkg"
    mkdir -p "$doc"
    sed -e "s|@YEAR@|$(date -u -d "@$EPOCH" +%Y)|" "$SRCDIR/pkg/deb/copyright" > "$doc/copyright"
    printf 'ripple (%s) unstable; urgency=medium\n\n  * Built from the Ripple source tree with make deb.\n\n -- %s  %s\n' \
        "$DEBVER" "$MAINT" "$date_r" | gzip -9n > "$doc/changelog.Debian.gz"
done
mkdir -p "$WORK/$RUNTIME-dbgsym/usr/share/doc"
ln -s "$RUNTIME" "$WORK/$RUNTIME-dbgsym/usr/share/doc/$RUNTIME-dbgsym"

# A minimal source package description, which dpkg-shlibdeps and
# dpkg-gensymbols read.
mkdir -p "$WORK/src/debian"
printf 'Source: ripple\nMaintainer: %s\n\nPackage: %s\nArchitecture: any\n\nPackage: libripple-dev\nArchitecture: any\n' \
    "$MAINT" "$RUNTIME" > "$WORK/src/debian/control"
printf 'ripple (%s) unstable; urgency=medium\n\n  * make deb\n\n -- %s  %s\n' "$DEBVER" "$MAINT" "$date_r" \
    > "$WORK/src/debian/changelog"

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
    "Description: reactive signals and operators with a C API (runtime)" \
    " Ripple is a reactive runtime with ReactiveCocoa's semantics: signals," \
    " subscribers, disposables, subjects, multicast connections, operators and" \
    " schedulers, written in Swift and exported as a plain C library. The Swift" \
    " runtime is linked in, so programs need no Swift installation." \
    " ." \
    " This package contains the shared library."
control libripple-dev "Multi-Arch: same" "Depends: $RUNTIME (= $DEBVER)" "Section: libdevel" "Priority: optional" \
    "Description: reactive signals and operators with a C API (development files)" \
    " Ripple is a reactive runtime with ReactiveCocoa's semantics: signals," \
    " subscribers, disposables, subjects, multicast connections, operators and" \
    " schedulers, written in Swift and exported as a plain C library." \
    " ." \
    " This package contains the C header, the header-only C++ binding, the" \
    " pkg-config and CMake package files, man pages and a valgrind suppression" \
    " file."
buildid=$(readelf -n "$lib" | sed -n 's/^.*Build ID: *\([0-9a-f]*\).*$/\1/p')
control "$RUNTIME-dbgsym" "Multi-Arch: same" "Depends: $RUNTIME (= $DEBVER)" "Section: debug" "Priority: optional" \
    "Auto-Built-Package: debug-symbols" "Build-Ids: $buildid" \
    "Description: debug symbols for $RUNTIME"

debs=()
for pkg in "$RUNTIME" libripple-dev "$RUNTIME-dbgsym"; do
    (cd "$WORK/$pkg" && find usr -type f -printf '%P\n' | LC_ALL=C sort | sed 's|^|usr/|' | xargs md5sum > DEBIAN/md5sums)
    find "$WORK/$pkg" -type d -exec chmod 0755 {} +
    chmod 0644 "$WORK/$pkg"/DEBIAN/*
    deb="$DEBDIR/${pkg}_${DEBVER}_${ARCH}.deb"
    dpkg-deb --root-owner-group -Zxz --build "$WORK/$pkg" "$deb" >/dev/null
    debs+=("$deb")
done
printf '%s\n' "${debs[@]}"

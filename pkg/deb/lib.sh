# Shell functions shared by pkg/mkdeb.sh and pkg/mkdeb-nats.sh (sourced from
# the source tree's root). deb_setup sets what the others read: DEBVER, ARCH,
# MA, SRCDIR, MAINT, EPOCH and ROOT (the staged install, $WORK/root).

# deb_setup: the package settings and a clean $WORK (from VERSION, WORK,
# DEBDIR and DEB_MAINTAINER).
deb_setup() {
    DEBVER="$VERSION-1"
    ARCH=$(dpkg-architecture -qDEB_HOST_ARCH)
    MA=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
    SRCDIR=$(pwd)
    MAINT=${DEB_MAINTAINER:?set DEB_MAINTAINER='Name <address>'}
    # Reproducible dates: the last commit's, unless SOURCE_DATE_EPOCH says otherwise.
    EPOCH=${SOURCE_DATE_EPOCH:-$(git -C "$SRCDIR" log -1 --format=%ct 2>/dev/null || date +%s)}
    export SOURCE_DATE_EPOCH=$EPOCH
    rm -rf "$WORK" && mkdir -p "$WORK" "$DEBDIR"
    ROOT="$WORK/root"
}

# move PKG PATH...: files of a package, moved out of the staged install.
move() {
    local pkg=$1; shift
    for p in "$@"; do
        mkdir -p "$WORK/$pkg/$(dirname "$p")"
        mv "$WORK/root/$p" "$WORK/$pkg/$p"
    done
}

# nothing_left: every installed file went into a package.
nothing_left() {
    local left
    left=$(find "$WORK/root" -type f -o -type l)
    [ -z "$left" ] || { echo "installed files in no package:"; echo "$left"; exit 1; }
}

# compress_man PKG: man pages are compressed; their aliases stay symlinks.
compress_man() {
    (cd "$WORK/$1/usr/share/man/man3" && for f in *.3; do
        if [ -L "$f" ]; then ln -s "$(readlink "$f").gz" "$f.gz" && rm "$f"; else gzip -9n "$f"; fi
    done)
}

# doc_files WHAT PKG...: copyright and changelog in /usr/share/doc/<package>.
doc_files() {
    local what=$1; shift
    local date_r
    date_r=$(date -R -u -d "@$EPOCH")
    for pkg in "$@"; do
        local doc="$WORK/$pkg/usr/share/doc/$pkg"
        mkdir -p "$doc"
        sed -e "s|@YEAR@|$(date -u -d "@$EPOCH" +%Y)|" "$SRCDIR/pkg/deb/copyright" > "$doc/copyright"
        printf 'ripple (%s) unstable; urgency=medium\n\n  * Built from the Ripple source tree with %s.\n\n -- %s  %s\n' \
            "$DEBVER" "$what" "$MAINT" "$date_r" | gzip -9n > "$doc/changelog.Debian.gz"
    done
}

# source_package WHAT PKG...: the minimal debian/ directory that
# dpkg-shlibdeps and dpkg-gensymbols read.
source_package() {
    local what=$1; shift
    mkdir -p "$WORK/src/debian"
    { printf 'Source: ripple\nMaintainer: %s\n' "$MAINT"
      for pkg in "$@"; do printf '\nPackage: %s\nArchitecture: any\n' "$pkg"; done; } > "$WORK/src/debian/control"
    printf 'ripple (%s) unstable; urgency=medium\n\n  * %s\n\n -- %s  %s\n' "$DEBVER" "$what" "$MAINT" \
        "$(date -R -u -d "@$EPOCH")" > "$WORK/src/debian/changelog"
}

# control PKG FIELDS...: DEBIAN/control.
control() {
    local name=$1; shift
    mkdir -p "$WORK/$name/DEBIAN"
    {
        printf 'Package: %s\nSource: ripple\nVersion: %s\nArchitecture: %s\nMaintainer: %s\nInstalled-Size: %s\n' \
            "$name" "$DEBVER" "$ARCH" "$MAINT" "$(du -sk --exclude=DEBIAN "$WORK/$name" | cut -f1)"
        printf '%s\n' "$@"
    } > "$WORK/$name/DEBIAN/control"
}

# build_debs PKG...: md5sums, modes, dpkg-deb into $DEBDIR; prints the .deb paths.
build_debs() {
    local debs=()
    for pkg in "$@"; do
        (cd "$WORK/$pkg" && find usr -type f -printf '%P\n' | LC_ALL=C sort | sed 's|^|usr/|' | xargs md5sum > DEBIAN/md5sums)
        find "$WORK/$pkg" -type d -exec chmod 0755 {} +
        chmod 0644 "$WORK/$pkg"/DEBIAN/*
        local arch
        arch=$(sed -n 's/^Architecture: //p' "$WORK/$pkg/DEBIAN/control")  # "all" for ripple-tools
        local deb="$DEBDIR/${pkg}_${DEBVER}_${arch}.deb"
        dpkg-deb --root-owner-group -Zxz --build "$WORK/$pkg" "$deb" >/dev/null
        debs+=("$deb")
    done
    printf '%s\n' "${debs[@]}"
}

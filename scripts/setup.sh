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

setup_all() {
  setup_rust
  setup_browsers
  setup_cargo_tools
  setup_node
}

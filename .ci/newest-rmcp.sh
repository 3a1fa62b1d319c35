#!/usr/bin/env bash
# The other end of "any rmcp 3.x": a copy of the repository whose lockfile takes the newest
# rmcp 3.x (and whatever it needs), built and put through the proxy and harness tests. The
# lockfile's own versions (the oldest we support) are what `cargo test` in .ci/run tests.
# Shares the target directory, so only rmcp and what depends on it are built again.
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
copy="$(mktemp -d "${TMPDIR:-/tmp}/mcpeval-newest-rmcp.XXXXXX")"
trap 'rm -rf "$copy"' EXIT
cd "$repo"
git ls-files -z | xargs -0 cp --parents -t "$copy"
cd "$copy"
timeout 300 cargo update -p rmcp
echo "newest-rmcp: $(grep -A1 '^name = "rmcp"$' Cargo.lock | sed -n 's/^version = //p' | tr -d '"') (lockfile: $(grep -A1 '^name = "rmcp"$' "$repo/Cargo.lock" | sed -n 's/^version = //p' | tr -d '"'))"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$repo/target}"
export MCPEVAL_PEERS_DIR="${MCPEVAL_PEERS_DIR:-$repo/.peers}"
# The library, the binary and the examples build (what a user's crate and our tests' servers
# compile); the proxy's tests, init's (its server discovery and HTTP headers talk rmcp), the
# harness's and every protocol version with every agent run. The other test binaries are not
# built again (tests/support, compiled into the proxy's, is most of the test code that uses
# rmcp).
cargo build --lib --bins --examples
cargo test --test proxy
cargo test --test cli -- init::
cargo test --test run --test slow -- harness:: protocol_versions::

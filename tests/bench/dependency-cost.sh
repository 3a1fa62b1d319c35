#!/usr/bin/env bash
# What adding mcpeval as a dev-dependency costs a user's MCP server crate: a cold
# `cargo test --no-run` of a small rmcp stdio server (one tool), once without mcpeval and
# once with it (a path dependency on this checkout, and the tests/evals.rs and profile `mcpeval init`
# writes), each in a target directory of its own. Prints the wall and CPU seconds, the units
# cargo compiled and the packages in the lockfile of each, and the difference.
#
#   bash tests/bench/dependency-cost.sh                  # as init writes it: default-features = false
#   MCPEVAL_FEATURES=default bash tests/bench/dependency-cost.sh   # the default features (the binary's `cli`)
#   PROFILE=0 bash tests/bench/dependency-cost.sh        # without init's debug = false profile
#   MCPEVAL_FEATURES="extension-releases" bash tests/bench/dependency-cost.sh
#   KEEP=1 bash tests/bench/dependency-cost.sh           # keep the crates and target dirs
#   KEEP=1 TIMINGS=1 bash tests/bench/dependency-cost.sh # and cargo's --timings report of both
#
# Downloads are fetched before the timed builds (crates.io must be reachable, or the
# registry cache warm). The wall seconds depend on the machine and its load (printed); the
# CPU seconds on the machine much less, the unit and package counts not at all.
set -euo pipefail

checkout=$(cd "$(dirname "$0")/../.." && pwd)
package=$(sed -n '/^\[package\]/,/^\[/s/^name = "\(.*\)"$/\1/p' "$checkout/Cargo.toml" | head -1)
features=${MCPEVAL_FEATURES:-none}
jobs=${CARGO_BUILD_JOBS:-$(nproc)}

work=$(mktemp -d "${TMPDIR:-/tmp}/mcpeval-dependency-cost.XXXXXX")
if [ "${KEEP:-0}" != 1 ]; then
  trap 'rm -rf "$work"' EXIT
fi

# The server crate: rmcp 3.11 (server, macros, stdio), tokio, serde; one tool.
make_server() {
  local dir=$1
  mkdir -p "$dir/src"
  cat >"$dir/Cargo.toml" <<'EOF'
[package]
name = "calc-server"
version = "0.1.0"
edition = "2024"
publish = false

[dependencies]
rmcp = { version = "3.11", features = ["server", "macros", "transport-io"] }
tokio = { version = "1", features = ["macros", "rt-multi-thread"] }
serde = { version = "1", features = ["derive"] }
EOF
  cat >"$dir/src/main.rs" <<'EOF'
use rmcp::handler::server::wrapper::Parameters;
use rmcp::schemars::JsonSchema;
use rmcp::{ServerHandler, ServiceExt, tool, tool_handler, tool_router};
use serde::Deserialize;

#[derive(Deserialize, JsonSchema)]
#[schemars(crate = "rmcp::schemars")]
struct AddRequest {
    a: i64,
    b: i64,
}

#[derive(Clone)]
struct Calc;

#[tool_router]
impl Calc {
    #[tool(description = "Adds two integers")]
    async fn add(&self, Parameters(AddRequest { a, b }): Parameters<AddRequest>) -> String {
        (a + b).to_string()
    }
}

#[tool_handler]
impl ServerHandler for Calc {}

#[tokio::main]
async fn main() {
    match Calc.serve(rmcp::transport::stdio()).await {
        Ok(service) => {
            let _ = service.waiting().await;
        }
        Err(e) => eprintln!("calc-server: {e}"),
    }
}
EOF
}

# The same crate with mcpeval as a dev-dependency and the harness's tests/evals.rs.
add_mcpeval() {
  local dir=$1 spec
  case "$features" in
    default) spec="{ path = \"$checkout\" }" ;;
    none) spec="{ path = \"$checkout\", default-features = false }" ;;
    *)
      spec="{ path = \"$checkout\", default-features = false, features = [$(echo "$features" | sed 's/[^ ][^ ]*/"&"/g; s/ /, /g')] }"
      ;;
  esac
  cat >>"$dir/Cargo.toml" <<EOF

[dev-dependencies]
$package = $spec

[[test]]
name = "evals"
harness = false
EOF
  # The profile mcpeval init writes in a workspace root (PROFILE=0 leaves it out).
  if [ "${PROFILE:-1}" = 1 ]; then
    printf '\n[profile.dev.package.%s]\ndebug = false\n' "$package" >>"$dir/Cargo.toml"
  fi
  mkdir -p "$dir/tests" "$dir/evals"
  cat >"$dir/tests/evals.rs" <<'EOF'
fn main() -> std::process::ExitCode {
    mcpeval::Harness::discover("evals")
        .env("CALC_BIN", env!("CARGO_BIN_EXE_calc-server"))
        .run()
}
EOF
}

# Wall and CPU seconds (user + system, of cargo and every compiler it ran), compiled units
# and lockfile packages of a cold `cargo test --no-run`. The CPU seconds hardly depend on
# what else the machine runs; the wall seconds do.
measure() {
  local dir=$1 log=$1.log
  (cd "$dir" && cargo fetch --quiet)
  local TIMEFORMAT='%R %U %S'
  { time (cd "$dir" && CARGO_TARGET_DIR="$dir/target" CARGO_INCREMENTAL=0 \
    cargo test --no-run --jobs "$jobs" --color never ${TIMINGS:+--timings} >"$log" 2>&1); } \
    2>"$dir.time" || {
    cat "$log" >&2
    echo "dependency-cost: the build in $dir failed" >&2
    exit 1
  }
  read -r seconds user system <"$dir.time"
  cpu=$(awk "BEGIN { printf \"%.1f\", $user + $system }")
  units=$(grep -c '^ *Compiling ' "$log" || true)
  packages=$(grep -c '^name = ' "$dir/Cargo.lock")
}

make_server "$work/without"
make_server "$work/with"
add_mcpeval "$work/with"

echo "dependency-cost: $package at $checkout (features: $features), $jobs jobs, $(nproc) cores"
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
measure "$work/without"
s0=$seconds c0=$cpu u0=$units p0=$packages
echo "load average between: $(cut -d' ' -f1-3 /proc/loadavg)"
measure "$work/with"
s1=$seconds c1=$cpu u1=$units p1=$packages
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
rmcp=$(grep -A1 '^name = "rmcp"$' "$work/with/Cargo.lock" | sed -n 's/^version = "\(.*\)"/\1/p')
echo "rmcp $rmcp; cargo test --no-run, cold:"
printf '%-18s %9s %9s %7s %9s\n' "" "wall s" "CPU s" units packages
printf '%-18s %9.1f %9.1f %7d %9d\n' "without mcpeval" "$s0" "$c0" "$u0" "$p0"
printf '%-18s %9.1f %9.1f %7d %9d\n' "with mcpeval" "$s1" "$c1" "$u1" "$p1"
printf '%-18s %9.1f %9.1f %7d %9d\n' "mcpeval adds" "$(awk "BEGIN { print $s1 - $s0 }")" \
  "$(awk "BEGIN { print $c1 - $c0 }")" "$((u1 - u0))" "$((p1 - p0))"
if [ "${KEEP:-0}" = 1 ]; then
  echo "kept: $work"
fi

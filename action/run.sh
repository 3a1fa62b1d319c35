#!/usr/bin/env bash
# The shell steps of mcpeval's GitHub Action (action.yml at the repository's root), one
# sub-command per step. It reads what the runner sets (GITHUB_EVENT_PATH, GITHUB_REPOSITORY,
# GITHUB_API_URL, GITHUB_BASE_REF, GITHUB_OUTPUT, RUNNER_TEMP, GITHUB_ACTION_PATH) and the
# action's inputs, which action.yml passes as INPUT_* variables and the token as GITHUB_TOKEN.
#
#   install   cargo install the action's own mcpeval, unless a run of `cargo …` needs none
#   run       the evals: INPUT_COMMAND, or nextest's partition INPUT_PARTITION (k/n) of
#             `cargo test --test <name>`; the artifact's name and directory as step outputs
#   merge     the shards downloaded under $RUNNER_TEMP/mcpeval-action/shards as one report
#             (report.json, report.html, report.md) in $RUNNER_TEMP/mcpeval-action/report
#   baseline  the base branch's newest report artifact, unzipped in …/mcpeval-action/baseline
#   comment   FILE posted as the pull request's one comment, or that comment (first line
#             <!-- mcpeval -->) updated
#   gate      baseline, `mcpeval diff` (or the report alone without a baseline), comment;
#             exits with diff's code (1: a regression or a budget exceeded)
#
# The token goes to curl on its standard input, never on a command line or in the output.
set -euo pipefail
# Errors inside $(…) stop the script too.
shopt -s inherit_errexit

marker='<!-- mcpeval -->'
name="${INPUT_NAME:-mcpeval}"

say() { printf 'mcpeval-action: %s\n' "$*" >&2; }

die() {
    say "$*"
    exit 2
}

work() { printf '%s/mcpeval-action' "${RUNNER_TEMP:?RUNNER_TEMP is not set}"; }

# A step output (`name=value` in GITHUB_OUTPUT).
output() { printf '%s=%s\n' "$1" "$2" >>"${GITHUB_OUTPUT:-/dev/null}"; }

# A field of the event that started the workflow, empty when absent.
event() {
    if [ -n "${GITHUB_EVENT_PATH:-}" ] && [ -f "$GITHUB_EVENT_PATH" ]; then
        jq -r "$1 // empty" "$GITHUB_EVENT_PATH"
    fi
}

# curl with the token's header read from standard input.
curl_github() {
    [ -n "${GITHUB_TOKEN:-}" ] || die "GITHUB_TOKEN is not set (the github-token input)"
    printf 'Authorization: Bearer %s\n' "$GITHUB_TOKEN" |
        curl -fsS --retry 3 -H @- -H 'Accept: application/vnd.github+json' \
            -H 'X-GitHub-Api-Version: 2022-11-28' "$@"
}

# METHOD PATH [JSON_FILE]: one REST call; prints the answer.
api() {
    local url="${GITHUB_API_URL:-https://api.github.com}/$2"
    if [ $# -ge 3 ]; then
        curl_github -X "$1" -H 'Content-Type: application/json' --data-binary "@$3" "$url"
    else
        curl_github -X "$1" "$url"
    fi
}

cmd_install() {
    case "${INPUT_MODE:-run}" in
    run | gate) ;;
    *) die "mode: '${INPUT_MODE}' is neither run nor gate" ;;
    esac
    local command="${INPUT_COMMAND:-cargo test --test evals}"
    if [ "${INPUT_MODE:-run}" = run ] && [ "${command#cargo }" != "$command" ]; then
        say "install: not needed (the evals run with cargo)"
        return
    fi
    # The action's own checkout: the package mcpeval-harness at the version of its tag.
    cargo install --locked --path "${GITHUB_ACTION_PATH:?GITHUB_ACTION_PATH is not set}"
}

cmd_run() {
    local command="${INPUT_COMMAND:-cargo test --test evals}" artifact="$name-shard"
    local partition="${INPUT_PARTITION:-}"
    if [ -n "$partition" ]; then
        [[ "$partition" =~ ^([1-9][0-9]*)/([1-9][0-9]*)$ ]] ||
            die "partition: '$partition' is not k/n (such as 1/2)"
        [ "${BASH_REMATCH[1]}" -le "${BASH_REMATCH[2]}" ] ||
            die "partition: $partition: k is more than n"
        artifact="$name-shard-${BASH_REMATCH[1]}-of-${BASH_REMATCH[2]}"
        [[ "$command" =~ ^cargo\ test\ --test\ ([A-Za-z0-9_-]+)$ ]] ||
            die "partition: needs the command 'cargo test --test <name>' (nextest splits it), not '$command'"
        command="cargo nextest run --test ${BASH_REMATCH[1]} --no-fail-fast --partition count:$partition"
    fi
    export MCPEVAL_OUTPUT_DIR="${MCPEVAL_OUTPUT_DIR:-$PWD/target/mcpeval}"
    output artifact "$artifact"
    output output "$MCPEVAL_OUTPUT_DIR"
    say "run: $command"
    exec bash -c "$command"
}

cmd_merge() {
    local dir shards=()
    dir="$(work)"
    for shard in "$dir"/shards/*; do
        [ -d "$shard" ] && shards+=("$shard")
    done
    [ ${#shards[@]} -gt 0 ] || die "merge: no shard under $dir/shards (did a run upload one?)"
    mkdir -p "$dir/report"
    mcpeval report "${shards[@]}" --output "$dir/report/report.json" \
        --html "$dir/report/report.html" --format markdown >"$dir/report/report.md"
    output report "$dir/report/report.json"
}

# The artifact's download URL: the newest unexpired `<name>-report` of a run on branch $1
# of this repository (not a fork's branch of the same name).
baseline_url() {
    local page=1 answer url
    while [ "$page" -le 10 ]; do
        answer="$(api GET "repos/$GITHUB_REPOSITORY/actions/artifacts?name=$name-report&per_page=100&page=$page")"
        url="$(jq -r --arg base "$1" '[.artifacts[]
            | select((.expired | not) and .workflow_run.head_branch == $base
                and .workflow_run.head_repository_id == .workflow_run.repository_id)]
            | sort_by(.created_at) | reverse | .[0].archive_download_url // empty' <<<"$answer")"
        if [ -n "$url" ]; then
            printf '%s' "$url"
            return
        fi
        [ "$(jq '.artifacts | length' <<<"$answer")" -ge 100 ] || return 0
        page=$((page + 1))
    done
}

cmd_baseline() {
    local dir base url
    dir="$(work)"
    rm -rf "$dir/baseline"
    base="${GITHUB_BASE_REF:-$(event .pull_request.base.ref)}"
    if [ -z "$base" ]; then
        say "baseline: not a pull request, no base branch"
        return
    fi
    url="$(baseline_url "$base")"
    if [ -z "$url" ]; then
        say "baseline: no $name-report artifact from a run on $base"
        return
    fi
    mkdir -p "$dir/baseline"
    # The answer redirects to storage elsewhere; curl does not send the token there.
    curl_github -L -o "$dir/baseline.zip" "$url"
    unzip -q -o "$dir/baseline.zip" -d "$dir/baseline"
    rm -f "$dir/baseline.zip"
    [ -f "$dir/baseline/report.json" ] || die "baseline: the $name-report artifact holds no report.json"
    say "baseline: $name-report of $base"
    output baseline "$dir/baseline/report.json"
}

cmd_comment() {
    local file="${1:?comment: which file?}" number dir page=1 answer id=""
    number="$(event '.pull_request.number // .issue.number')"
    if [ -z "$number" ]; then
        say "comment: not a pull request, nothing posted"
        return
    fi
    dir="$(work)"
    mkdir -p "$dir"
    jq -n --rawfile body "$file" '{body: $body}' >"$dir/comment.json"
    while :; do
        answer="$(api GET "repos/$GITHUB_REPOSITORY/issues/$number/comments?per_page=100&page=$page")"
        id="$(jq -r --arg marker "$marker" \
            '[.[] | select(.body | startswith($marker))][0].id // empty' <<<"$answer")"
        [ -z "$id" ] && [ "$(jq length <<<"$answer")" -ge 100 ] || break
        page=$((page + 1))
    done
    if [ -n "$id" ]; then
        api PATCH "repos/$GITHUB_REPOSITORY/issues/comments/$id" "$dir/comment.json" >/dev/null
        say "comment: updated $id on #$number"
    else
        api POST "repos/$GITHUB_REPOSITORY/issues/$number/comments" "$dir/comment.json" >/dev/null
        say "comment: posted on #$number"
    fi
}

cmd_gate() {
    local dir report flags=() code=0
    dir="$(work)"
    report="$dir/report/report.json"
    [ -f "$report" ] || die "gate: no merged report at $report (merge first)"
    cmd_baseline
    if [ -f "$dir/baseline/report.json" ]; then
        read -r -a flags <<<"${INPUT_DIFF_FLAGS:-}"
        if [ "${INPUT_FAIL_ON_REGRESSION:-true}" = true ]; then
            flags+=(--fail-on-regression)
        fi
        mcpeval diff "$dir/baseline/report.json" "$report" --format markdown "${flags[@]}" \
            >"$dir/comment.md" || code=$?
    else
        # The report alone, a note under its marker line.
        {
            head -n 1 "$dir/report/report.md"
            printf '\n_No baseline: no `%s-report` artifact from the base branch yet, so nothing is compared._\n' "$name"
            tail -n +2 "$dir/report/report.md"
        } >"$dir/comment.md"
    fi
    # A fork's pull request gets a read-only token: no comment, but the gate still decides.
    if [ -s "$dir/comment.md" ] && ! bash "$0" comment "$dir/comment.md"; then
        printf '::warning title=mcpeval::the comment could not be posted (a read-only token?)\n'
    fi
    exit "$code"
}

case "${1:-}" in
install | run | merge | baseline | gate)
    "cmd_$1"
    ;;
comment)
    cmd_comment "${2:-}"
    ;;
*)
    die "usage: $0 install|run|merge|baseline|comment FILE|gate"
    ;;
esac

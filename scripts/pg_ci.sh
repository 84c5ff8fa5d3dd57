#!/usr/bin/env bash
# A throwaway PostgreSQL server for the play-store tests, on 127.0.0.1 and a free port,
# in a temporary folder.
#
#   eval "$(scripts/pg_ci.sh start)"   # exports KERKER_TEST_PG (the URL) and KERKER_PG_CI_DIR
#   scripts/pg_ci.sh stop              # stops it and removes the folder
#
# initdb/pg_ctl: from PATH, else /usr/lib/postgresql/*/bin, else Debian's `postgresql`
# package is installed with apt-get (CI runs as root). The server refuses to run as root,
# so as root it runs as the `postgres` user (made by the package) or `nobody`.
set -euo pipefail

find_bin() {
    if command -v initdb >/dev/null 2>&1 && command -v pg_ctl >/dev/null 2>&1; then
        dirname "$(readlink -f "$(command -v initdb)")"
        return
    fi
    local dir
    dir=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)
    if [ -z "$dir" ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
        apt-get update -qq >&2 && DEBIAN_FRONTEND=noninteractive \
            apt-get install -y -qq postgresql >&2
        dir=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)
    fi
    if [ -z "$dir" ]; then
        echo "pg_ci.sh: no initdb found (install PostgreSQL)" >&2
        exit 1
    fi
    echo "$dir"
}

as_owner() {
    if [ "$(id -u)" = 0 ]; then
        local user=postgres
        id -u postgres >/dev/null 2>&1 || user=nobody
        runuser -u "$user" -- "$@"
    else
        "$@"
    fi
}

start() {
    local bin dir port user
    bin=$(find_bin)
    dir=$(mktemp -d "${TMPDIR:-/tmp}/kerker-pg.XXXXXX")
    chmod 755 "$dir"
    if [ "$(id -u)" = 0 ]; then
        user=postgres
        id -u postgres >/dev/null 2>&1 || user=nobody
        chown "$user" "$dir"
    fi
    port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')
    as_owner "$bin/initdb" -D "$dir/data" -A trust -U kerker -E UTF8 --no-sync >"$dir/initdb.log" 2>&1 \
        || { cat "$dir/initdb.log" >&2; exit 1; }
    as_owner "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
        -o "-c listen_addresses=127.0.0.1 -p $port -k $dir -c fsync=off" start >&2 \
        || { cat "$dir/server.log" >&2; exit 1; }
    echo "$bin" >"$dir/bin"
    echo "export KERKER_PG_CI_DIR=$dir"
    echo "export KERKER_TEST_PG=postgresql://kerker@127.0.0.1:$port/postgres"
}

stop() {
    local dir=${KERKER_PG_CI_DIR:-}
    if [ -z "$dir" ] || [ ! -d "$dir" ]; then
        return 0
    fi
    as_owner "$(cat "$dir/bin")/pg_ctl" -D "$dir/data" -m fast -w stop >&2 || true
    rm -rf "$dir"
}

case "${1:-}" in
    start) start ;;
    stop) stop ;;
    *) echo "usage: $0 start|stop" >&2; exit 2 ;;
esac

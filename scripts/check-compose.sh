#!/usr/bin/env bash
# Validates docker-compose.yml (or the compose file given) where Docker itself cannot run, and fails if it is not
# valid. Always: the Compose Specification schema and the file's references (scripts/check-compose.mjs), so every
# machine checks the same. Then the compose tool this machine has, which parses the file as `up` would:
# `docker compose config -q` (plugin), else a standalone docker-compose v2, else docker-compose v1 (Debian's
# 1.29), which predates the top-level `name:` and so reads a copy without that one line.
set -euo pipefail
cd "$(dirname "$0")/.."
file="${1:-docker-compose.yml}"

node scripts/check-compose.mjs "$file"

if docker compose version >/dev/null 2>&1; then
  docker compose -f "$file" config -q
  echo "compose: docker compose config: ok"
elif command -v docker-compose >/dev/null 2>&1; then
  version="$(docker-compose version --short 2>/dev/null || true)"
  if [[ "$version" == v2* || "$version" == 2* ]]; then
    docker-compose -f "$file" config -q
  else
    copy="$(mktemp --suffix=.yml)"
    trap 'rm -f "$copy"' EXIT
    sed '/^name:/d' "$file" > "$copy"
    docker-compose -f "$copy" --project-directory "$(dirname "$file")" -p timebank config -q
  fi
  echo "compose: docker-compose $version config: ok"
else
  echo "compose: no docker compose on this machine; checked against the schema only"
fi

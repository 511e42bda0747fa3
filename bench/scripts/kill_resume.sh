#!/usr/bin/env bash
# Kill a quick-suite run mid-way with SIGKILL, then resume it; print what the database holds.
set -u
cd "$(dirname "$0")/../.."
export OUT=${OUT:-/tmp/quick-kill}
rm -rf $OUT
python -m cosolve bench bench/suites/quick.toml --out $OUT --workers 1 --no-progress > /tmp/kr1.log 2>&1 &
PID=$!
sleep 30
kill -KILL $PID
wait $PID 2>/dev/null
sleep 1
echo "after SIGKILL at 30 s:"
python - <<'PY'
import os, sqlite3
db = sqlite3.connect(os.environ.get("OUT", "/tmp/quick-kill") + "/results.sqlite")
print("  jobs recorded:", db.execute("select count(*), count(distinct key) from jobs").fetchone())
print("  by status:", db.execute("select status, count(*) from jobs group by status").fetchall())
PY
start=$(date +%s.%N)
python -m cosolve bench bench/suites/quick.toml --out $OUT --workers 1 --resume --no-progress > /tmp/kr2.log 2>&1
echo "resume exit code $?; $(head -1 /tmp/kr2.log)"
python - <<'PY'
import os, sqlite3
db = sqlite3.connect(os.environ.get("OUT", "/tmp/quick-kill") + "/results.sqlite")
print("  jobs recorded:", db.execute("select count(*), count(distinct key) from jobs").fetchone())
print("  by status:", db.execute("select status, count(*) from jobs group by status").fetchall())
print("  runs:", db.execute("select id, command from runs").fetchall())
print("  jobs per run:", db.execute("select run_id, count(*) from jobs group by run_id").fetchall())
PY

#!/usr/bin/env bash
# The figures of BENCHMARKS.md. Run through `make bench` (release build first).
set -euo pipefail
cd "$(dirname "$0")/.."
bin=.build/release
root=$(mktemp -d /tmp/reveille-bench.XXXXXX)
"$bin/reveilled" --root "$root" --time-zone Europe/Berlin >"$root/reveilled.out" 2>&1 &
pid=$!
trap 'kill $pid 2>/dev/null; wait $pid 2>/dev/null; rm -rf "$root"' EXIT
for _ in $(seq 100); do "$bin/reveille" --root "$root" status >/dev/null 2>&1 && break; sleep 0.05; done

echo "== machine: $(nproc) cores, $(uname -m), $(date -u +%Y-%m-%d)"
echo "== populating: 200 alarms (every third skips holidays), 7 weekly rules, 30 date overrides, a holiday calendar"
days=(daily mon-fri sat,sun mon,wed,fri)
for i in $(seq 1 200); do
    printf -v time '%02d:%02d' $(( (i * 7) % 24 )) $(( (i * 13) % 60 ))
    skip=$([ $((i % 3)) -eq 0 ] && echo --skip-holidays || true)
    "$bin/reveille" --root "$root" alarm add "$time" --days "${days[$((i % 4))]}" --label "a$i" $skip >/dev/null
done
# A household's holiday calendar of five years, about 60 holiday days a year (reveille-bench holidays FILE).
"$bin/reveille-bench" holidays "$root/holidays.ics"
chmod 644 "$root/holidays.ics"; chmod 755 "$root"
"$bin/reveille" --root "$root" calendar add holidays "$root/holidays.ics" --holidays
for d in mon tue wed thu fri sat sun; do
    "$bin/reveille" --root "$root" rule add --days "$d" --at 09:00 --alarm $(( RANDOM % 200 + 1 )) >/dev/null || true
done
for i in $(seq 1 30); do
    date=$(date -u -d "+$((i * 5)) days" +%Y-%m-%d)
    # An alarm that rings on holidays: one that skips them may not be overridden on one.
    alarm=$i; [ $((i % 3)) -eq 0 ] && alarm=$((i + 1))
    "$bin/reveille" --root "$root" override add "$date" --off --alarm "$alarm" >/dev/null
done

echo "== reveille next --days 365 and reveille status (hyperfine, wall time)"
hyperfine --shell=none --warmup 5 --runs 50 --export-json "$root/cli.json" \
    "$bin/reveille --root $root next --days 365" \
    "$bin/reveille --root $root status" >/dev/null
python3 - "$root/cli.json" <<'PY'
import json, sys
for result in json.load(open(sys.argv[1]))["results"]:
    print(f"{result['command'].split(' --root ')[0].split('/')[-1]} {result['command'].split(' ', 3)[-1]}: "
          f"median {result['median'] * 1000:.1f} ms, mean {result['mean'] * 1000:.1f} ms, "
          f"min {result['min'] * 1000:.1f} ms over {len(result['times'])} runs")
PY
echo "   rows in next --days 365: $("$bin/reveille" --root "$root" next --days 365 | wc -l)"

echo "== schedule engine alone"
"$bin/reveille-bench" 10000

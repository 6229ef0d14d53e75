#!/usr/bin/env bash
# Lists what still decides in the daemon's edge (Sources/ReveilleDaemon), by pattern, and prints the
# count (docs/ARCHITECTURE.md, "What the edge still decides", explains every survivor):
# - time: date and time arithmetic (days of seconds, day numbers, adding days, a number of minutes
#   in seconds; a setting read in minutes, `fooMinutes * 60`, is a unit, not a decision);
# - schedule: a schedule, reminder or app engine run outside the core;
# - state: a comparison of the machine's or a session's state;
# - words: a branch on the text of a message or a reason;
# - sound: a volume or a fade chosen here.
# Comment lines are skipped. scripts/edge_decisions.sh [--count]
set -euo pipefail
cd "$(dirname "$0")/.."
declare -A patterns=(
    [time]='86_?400|\.adding\(days:|dayNumber|[0-9a-z)] *\* *60\b|\b3600\b|secondsOfDay'
    [schedule]='ScheduleEngine\(|ReminderPlan\(|forEachDecision\(|AppEvaluator\.|\.nextRing\(after'
    [state]='machine\.[A-Za-z.?]+ *(==|!=|<=|>=|<|>) |\.state *(==|!=) *\.'
    [words]='(message|reason|description|text|error)\??\.(contains|hasPrefix|hasSuffix)\(|(message|reason) *=='
    [sound]='volume: *[0-9]|fadeInSeconds: *[1-9]|volume */ *[0-9]'
)
# Not decisions: a setting read in minutes turned into seconds.
declare -A units=([time]='Minutes \* 60\b')
total=0
for kind in time schedule state words sound; do
    while IFS= read -r hit; do
        [ -n "$hit" ] || continue
        total=$((total + 1))
        [ "${1:-}" = --count ] || printf '%-9s %s\n' "$kind" "$hit"
    done < <(grep -nE "${patterns[$kind]}" Sources/ReveilleDaemon/*.swift | grep -vE '^[^:]+:[0-9]+: *//' |
        grep -vE "${units[$kind]:-^$}" || true)
done
echo "$total decisions left in Sources/ReveilleDaemon"

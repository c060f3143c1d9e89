#!/bin/bash
O=/tmp/r8/series3; mkdir -p $O
declare -A BIN=([old]=/tmp/perf-base [new]=/tmp/r8/perf-new)
echo "start $(date -u +%T) $(uptime)" > $O/load.txt
for run in 1 2 3 4 5 6 7 8; do
 for cfg in sock-16; do
  order="new old"; [ $((run % 2)) = 0 ] && order="old new"
  for b in $order; do
   n=${cfg#*-}; calls=60000; [ $n = 1000 ] && calls=100000
   ${BIN[$b]} serve-bench /tmp/perf-mini.wasm --server-process --episodes $n --calls $calls --duration 1m --socket --json > $O/$b-$cfg-$run.json 2>/dev/null
  done
 done
 echo "run $run $(date -u +%T) $(uptime)" >> $O/load.txt
done
for b in old new; do
 for f in $O/$b-*.json; do
  cfg=$(basename $f .json); cfg=${cfg#*-}; cfg=${cfg%-*}
  python3 -c "import json; d=json.load(open('$f')); print('BenchmarkServeBench/%s 1 %.1f server-us/call %.1f client-us/call %.0f calls/s %d errors' % ('$cfg', d['server_cpu_us_per_call'], d['cpu_us_per_call'], d['calls_per_s'], d['errors']))"
 done > $O/$b.txt
done
echo done > $O/done

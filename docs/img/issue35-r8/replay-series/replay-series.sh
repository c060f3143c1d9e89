#!/bin/bash
# BenchmarkReplay, the build before (cmd.test: runtime at 33ff429) and after (cmd-new.test), interleaved
O=/tmp/r8/replay-series; mkdir -p $O; : > $O/old.txt; : > $O/new.txt
cd /work/wt-perf/cmd/wasmenv
echo "start $(date -u +%T) $(uptime)" > $O/load.txt
for run in 1 2 3 4 5 6; do
  order="old new"; [ $((run % 2)) = 0 ] && order="new old"
  for b in $order; do
    exe=/tmp/r8/cmd.test; [ $b = new ] && exe=/tmp/r8/cmd-new.test
    $exe -test.run '^$' -test.bench 'BenchmarkReplay/(airline|taubench-retail)/' -test.benchtime 500x | grep Benchmark >> $O/$b.txt
  done
  echo "run $run $(date -u +%T) $(uptime)" >> $O/load.txt
done
echo done > $O/done

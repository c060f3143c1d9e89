#!/bin/bash
# syscalls of the server per call: /proc/PID/io syscr/syscw around a serve-bench run
exe=$1; n=$2; shift 2
$exe serve /tmp/perf-mini.wasm --addr 127.0.0.1:0 --idle-timeout -1s --max-episodes 1016 > /tmp/r8/srv.out 2>/dev/null &
pid=$!
for i in $(seq 50); do grep -q listening /tmp/r8/srv.out && break; sleep 0.2; done
url=$(grep -o 'http://[0-9.:]*' /tmp/r8/srv.out | head -1)
r0=$(awk '/syscr/{print $2}' /proc/$pid/io); w0=$(awk '/syscw/{print $2}' /proc/$pid/io)
/tmp/r8/perf-new serve-bench --url $url --episodes $n --calls 30000 --duration 1m --socket "$@" --json > /tmp/r8/sysc.json 2>/dev/null
r1=$(awk '/syscr/{print $2}' /proc/$pid/io); w1=$(awk '/syscw/{print $2}' /proc/$pid/io)
kill $pid; wait $pid 2>/dev/null
echo "$(basename $exe) episodes=$n $*: reads/call $(echo "scale=3; ($r1-$r0)/30000" | bc) writes/call $(echo "scale=3; ($w1-$w0)/30000" | bc)"

#!/bin/bash
# Third device call of 2026-12-07 (fifth session), same carried build: the performance steps issues 13 and 14 still
# owe (call8.sh says what each runs): the proxy's figures (hand-off, drain rate, put_bw by scope next to P2P), the
# emulator's dependent-op latency against the proxy, IBGDA's device-side post rate.
set -u
C=docs/results/2026-12-06-gpu-proxy-2/call8.sh
bash $C -d 300 figures
bash $C -d 420 ibgdalat
bash $C -d 560 postrate

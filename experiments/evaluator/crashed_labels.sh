#!/bin/sh
# Targeted crashed data: the decisions of a positions file that have at least one crashed
# contact candidate (candidates.py --crashed-decisions; fastbg.reference.features.is_crashed), labelled at
# 2 ply, for the crashed net. Resumable: rerun to go on (files and chunks that exist are kept).
#
#   sh experiments/evaluator/crashed_labels.sh SET NETS     # from the repository's root
#   sh experiments/evaluator/crashed_labels.sh s2012 experiments/runs/evaluator/nets_g11.npz
#   sh experiments/evaluator/crashed_labels.sh s3012 experiments/runs/evaluator/nets_g12.npz
#   sh experiments/evaluator/crashed_labels.sh g12 experiments/runs/evaluator/nets_g12.npz
#
# SET names a positions file of 60,000 games that exists: positions_SETraces.npz (made by
# generation12.sh for s2012 and s3012, by generation_labels.sh for gK). The labels go to
# lookahead_SETx_*.npz. About 150,000 candidates a set, 40-50 min on 2 cores.
set -e
[ $# -eq 2 ] || { echo "usage: sh $0 SET NETS (label SET's crashed decisions at 2 ply of NETS)" >&2; exit 2; }
S=$1
NETS=$2
PY=${PY:-python}
R=experiments/runs/evaluator
E=experiments/evaluator
[ -f $R/positions_${S}races.npz ] || { echo "$R/positions_${S}races.npz is missing" >&2; exit 2; }
[ -f $R/positions_${S}x.npz ] || $PY $E/candidates.py --positions $R/positions_${S}races.npz \
    --crashed-decisions --out $R/positions_${S}x
pids=
for k in 0 1; do
    $PY $E/lookahead.py --positions $R/positions_${S}x.npz --nets $NETS \
        --plies 2 --candidates 3 --chunk 5000 --part $k/2 --out $R/lookahead_${S}x \
        >> $R/${S}x_$k.log 2>&1 &
    pids="$pids $!"
done
for p in $pids; do wait $p; done   # set -e: a labeller that failed stops the script

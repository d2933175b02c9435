#!/bin/sh
# The long part of generation 10, started early: positions played by generation 9 (the
# shipped nets) and 2-ply labels of their candidate plays by generation 9, as in
# generation9.sh one generation on. Resumable: rerun to go on (chunks that exist are kept).
#
#   sh experiments/evaluator/generation10_labels.sh      # from the repository's root
#
# About 3 h on 2 cores (19 ms a candidate position a process); training as generation9.sh.
set -e
PY=${PY:-python}
R=experiments/runs/evaluator
E=experiments/evaluator
mkdir -p $R
# Generation 9's nets as shipped in 14b69c4 (SHA-256 6d8c4f24...), not today's nn2.npz.
[ -f $R/nets_g9.npz ] || git show 14b69c4:fastbg/data/nn/nn2.npz > $R/nets_g9.npz
[ -f $R/positions_g10.npz ] || $PY $E/positions.py --games 20000 --seed 10 --races 60000 \
    --keep 0.2 --alternatives 3 --nets $R/nets_g9.npz --out $R/positions_g10
[ -f $R/positions_g10c.npz ] || $PY $E/candidates.py --positions $R/positions_g10.npz \
    --out $R/positions_g10c
for k in 0 1; do
    $PY $E/lookahead.py --positions $R/positions_g10c.npz --nets $R/nets_g9.npz --plies 2 \
        --candidates 3 --chunk 5000 --part $k/2 --out $R/lookahead_g10c > $R/g10c_$k.log 2>&1 &
done
wait

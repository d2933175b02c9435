#!/bin/sh
# The long part of generation 11, started early: positions played by generation 10 and
# 2-ply labels of their candidate plays by generation 10, as generation10.sh one generation
# on, plus the race decisions of 60,000 more games for the race net (a race decision comes
# from a game: random races have none).
# Resumable: rerun to go on (files and chunks that exist are kept).
#
#   sh experiments/evaluator/generation11_labels.sh      # from the repository's root
#
# About 3.5 h on 2 cores (19 ms a contact candidate, 4 ms a race one, a process).
set -e
PY=${PY:-python}
R=experiments/runs/evaluator
E=experiments/evaluator
mkdir -p $R
# Generation 10's nets as shipped in eae72c0 (generation10.sh makes the same weights).
[ -f $R/nets_g10.npz ] || git show eae72c0:fastbg/data/nn/nn2.npz > $R/nets_g10.npz
[ -f $R/positions_g11.npz ] || $PY $E/positions.py --games 20000 --seed 11 --races 60000 \
    --keep 0.2 --alternatives 3 --nets $R/nets_g10.npz --out $R/positions_g11
[ -f $R/positions_g11c.npz ] || $PY $E/candidates.py --positions $R/positions_g11.npz \
    --out $R/positions_g11c
[ -f $R/positions_g11races.npz ] || $PY $E/positions.py --games 60000 --seed 1011 --races 0 \
    --keep 0.2 --alternatives 3 --nets $R/nets_g10.npz --out $R/positions_g11races
[ -f $R/positions_g11r.npz ] || $PY $E/candidates.py --positions $R/positions_g11races.npz \
    --race-decisions --out $R/positions_g11r
for set in g11r g11c; do
    for k in 0 1; do
        $PY $E/lookahead.py --positions $R/positions_$set.npz --nets $R/nets_g10.npz \
            --plies 2 --candidates 3 --chunk 5000 --part $k/2 --out $R/lookahead_$set \
            >> $R/${set}_$k.log 2>&1 &
    done
    wait
done

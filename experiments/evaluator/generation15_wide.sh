#!/bin/sh
# Generation 15's wide decisions: contact decisions of generation 14's games whose
# candidates are the 5 best plays at 0 ply, the 3 best by the nets' 1-ply look-ahead and one
# random play (positions.py --alternatives 5 --lookahead-alternatives 3), labelled at 2 ply
# by generation 14 (1 candidate reply a roll). The earlier sets kept each decision's 3 best
# plays at 0 ply and a random one, so a play the 0-ply net ranks 4th or lower was never in
# the data for the losses to lift; most of generation 14's large errors are such plays.
# Resumable: rerun to go on (files and chunks that exist are kept).
#
#   sh experiments/evaluator/generation15_wide.sh                 # w1 and v1
#   WIDE="w1 w2 v2" sh experiments/evaluator/generation15_wide.sh # these sets
#
# Each set's crashed decisions (positions_<set>x: candidates.py --crashed-decisions) are
# labelled the same way, for the crashed net.
#
# Compute on the 2-core VM (2026-12-05): 20,000 games with the look-ahead of the kept
# decisions ~17 min; ~130,000 contact decisions, ~700,000 candidates; labels ~10 ms a
# candidate on one core (~1 h on 2 cores).
set -e
PY=${PY:-python}
R=experiments/runs/evaluator
E=experiments/evaluator
mkdir -p $R
[ -f $R/nets_g14.npz ] || git show 90504fe:fastbg/data/nn/nn2.npz > $R/nets_g14.npz

wide() {   # wide NAME SEED PLAYER: 20,000 games, their contact decisions labelled
    N=$1
    [ -f $R/positions_$N.npz ] || $PY $E/positions.py --games 20000 --seed $2 --races 0 \
        --keep 0.2 --alternatives 5 --lookahead-alternatives 3 --nets $R/nets_g14.npz \
        --player $3 --out $R/positions_$N
    [ -f $R/positions_${N}c.npz ] || $PY $E/candidates.py --positions $R/positions_$N.npz \
        --contact-decisions --out $R/positions_${N}c
    [ -f $R/positions_${N}x.npz ] || $PY $E/candidates.py --positions $R/positions_$N.npz \
        --crashed-decisions --out $R/positions_${N}x
    for S in ${N}c ${N}x; do
        pids=
        for j in 0 1; do
            $PY $E/lookahead.py --positions $R/positions_$S.npz --nets $R/nets_g14.npz \
                --plies 2 --candidates 1 --chunk 5000 --part $j/2 --out $R/lookahead_$S \
                >> $R/${S}_$j.log 2>&1 &
            pids="$pids $!"
        done
        for p in $pids; do wait $p; done   # set -e: a labeller that failed stops the script
    done
}

# w<k>: games of generation 14 (seed 5k5); v<k>: games of the first network (nn1, seed 6k5),
# a weaker player whose games reach other positions (the error-rate benchmark's decisions
# come from such games), the candidates still ranked by generation 14
for N in ${WIDE:-w1 v1}; do
    k=${N#?}
    case $N in
        w[0-9]*) wide $N 5${k}5 nets ;;
        v[0-9]*) wide $N 6${k}5 nn1 ;;
        *) echo "generation15_wide.sh: unknown set $N (w<k> or v<k>)" >&2; exit 2 ;;
    esac
done

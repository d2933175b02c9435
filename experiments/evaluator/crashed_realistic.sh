#!/bin/sh
# After generation 17: does the crashed net learn realistic crashed decisions from many
# more of them? The crashed decisions of self-play from the opening position, by
# generation 17 (cr1) and by the first network (cr2, whose games the error-rate
# benchmark's decisions come from), every candidate of each (candidates.py
# --crashed-decisions; positions.py --near-crashed skips the look-ahead of positions that
# cannot be crashed decisions), labelled at 2 ply by generation 17 with one reply a roll;
# cr3 is held out. Not shipped unless experiments/TRAINING.md says so.
# Every step is resumable: rerun the script after an interruption.
#
#   sh experiments/evaluator/crashed_realistic.sh          # from the repository's root
#
# PY: the Python with fastbg and the [train] extra (PyTorch CPU).
set -e
PY=${PY:-python}
R=experiments/runs/evaluator
E=experiments/evaluator
[ -f $R/nets_g17.npz ] || PY=$PY sh $E/generation17.sh
. $E/crashed_data.sh        # labels SET

positions() {   # positions NAME SEED GAMES PLAYER
    [ -f $R/positions_$1.npz ] || $PY $E/positions.py --games $3 --seed $2 --races 0 \
        --keep 0.5 --near-crashed --alternatives 5 --lookahead-alternatives 3 \
        --nets $R/nets_g17.npz --player $4 --out $R/positions_$1 > $R/$1_positions.log 2>&1
    [ -f $R/positions_$1x.npz ] || $PY $E/candidates.py --positions $R/positions_$1.npz \
        --crashed-decisions --out $R/positions_$1x
}
positions cr1 75 30000 nets &
p1=$!
positions cr2 76 30000 nn1
wait $p1
positions cr3 77 1000 nn1
for S in cr3x cr1x cr2x; do labels $S; done
echo "crashed_realistic.sh: labels of cr1x, cr2x, cr3x in $R"
# MORE=1: two more sets of the same kinds (cr4x: generation 17's games, cr5x: the first
# network's), for the crashed net that reads crashed_blots.py's inputs
if [ "${MORE:-0}" = 1 ]; then
    positions cr4 78 30000 nets &
    p4=$!
    positions cr5 79 30000 nn1
    wait $p4
    for S in cr4x cr5x; do labels $S; done
    echo "crashed_realistic.sh: labels of cr4x, cr5x in $R"
fi

# TRAIN=1: the crashed nets of TRAINING.md "After generation 17, continued" that read the
# blot features (train.py --crashed-blots 10): zK5 (cr1x, cr2x) and, with MORE=1's sets,
# zK9 (cr1x, cr2x, cr4x, cr5x); each from generation 17's crashed net (zB3, made by
# generation17.sh) on its data, the endgames three times and the bear-offs of
# crashed_bearoff.sh (cb1x, cb3x), 20 epochs from 1e-3, in the data order of the runs
# measured (zK5 was trained on one thread, zK9 on two). About 15 min each on 2 cores.
if [ "${TRAIN:-0}" = 1 ]; then
    . $E/crashed_sets.sh
    crashed() {   # crashed NAME SET...: a blot-reading crashed net on these realistic sets
        N=$1; shift
        CR=
        for S in "$@"; do CR="$CR --also $R/positions_$S.npz lookahead:$R/lookahead_$S"; done
        [ -f $R/$N/epoch_019.npz ] || $PY $E/train.py --net crashed --name $N \
            --init $R/zB3/epoch_009.npz --hidden 192 --width 236 $SETS $BE $BE $BE $CB $CR \
            --crashed-blots 10 --epochs 20 --lr 1e-3 --schedule cosine --rank 16 --regret 1 \
            --threads 2
    }
    crashed zK5 cr1x cr2x
    [ "${MORE:-0}" = 1 ] && crashed zK9 cr1x cr2x cr4x cr5x
    echo "crashed_realistic.sh: $R/zK5 (and zK9); score them with hook.py (TRAINING.md)"
fi

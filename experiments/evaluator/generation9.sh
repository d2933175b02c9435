#!/bin/sh
# Generation 9 of the second evaluator, from generation 8 (the nets shipped before it),
# step by step. Every step is resumable: rerun the script after an interruption and it
# goes on where it stopped (positions files that exist are kept, lookahead.py and
# train.py resume from their chunks and checkpoints).
#
#   sh experiments/evaluator/generation9.sh            # from the repository's root
#
# Compute on a 2-core VM (2026-12-02), see experiments/TRAINING.md:
#   positions 30,000 + 20,000 games              ~7 min each
#   1-ply labels of positions_g9b (1.3M)         7 min
#   2-ply labels of 566k contact candidates      ~3 h on 2 cores (about 19 ms a position)
#   2-ply labels of 99k race-decision candidates ~40 min
#   training: contact ~2 min an epoch, race ~5 s an epoch
# PY: the Python with fastbg and the [train] extra (PyTorch CPU).
set -e
PY=${PY:-python}
R=experiments/runs/evaluator
E=experiments/evaluator
mkdir -p $R

# Generation 8's nets (what nn2.npz held before generation 9), as lookahead.py's teacher
# and train.py's warm start.
if [ ! -f $R/nets_g8.npz ]; then
    git show 4b68b44:fastbg/data/nn/nn2.npz > $R/nets_g8.npz
fi
$PY $E/pack.py --unpack $R/nets_g8.npz --contact $R/c8/epoch_000.npz --race $R/r8/epoch_000.npz

# Positions: g9b for 1-ply labels (with 200,000 random races), g9 for the 2-ply candidates.
[ -f $R/positions_g9b.npz ] || $PY $E/positions.py --games 30000 --seed 1009 --races 200000 \
    --keep 0.2 --alternatives 3 --nets $R/nets_g8.npz --out $R/positions_g9b
[ -f $R/positions_g9.npz ] || $PY $E/positions.py --games 20000 --seed 9 --races 60000 \
    --keep 0.2 --alternatives 3 --nets $R/nets_g8.npz --out $R/positions_g9
[ -f $R/positions_g9c.npz ] || $PY $E/candidates.py --positions $R/positions_g9.npz \
    --out $R/positions_g9c
[ -f $R/positions_g9r.npz ] || $PY $E/candidates.py --positions $R/positions_g9b.npz \
    --race-decisions --out $R/positions_g9r

# Labels by generation 8: 1 ply for g9b, 2 plies (3 candidates a roll) for the candidates.
# Two processes, one a core.
label() {   # positions out plies
    $PY $E/lookahead.py --positions $R/$1.npz --nets $R/nets_g8.npz --plies $3 --candidates 3 \
        --chunk 5000 --part 0/2 --out $R/$2 &
    $PY $E/lookahead.py --positions $R/$1.npz --nets $R/nets_g8.npz --plies $3 --candidates 3 \
        --chunk 5000 --part 1/2 --out $R/$2
    wait
}
label positions_g9b lookahead_g9b 1
label positions_g9c lookahead_g9c 2
label positions_g9r lookahead_g9r 2

# Training from generation 8's nets: all positions' 1-ply labels, the candidates' 2-ply
# labels, and the ranking loss on the 2-ply decisions only.
$PY $E/train.py --net contact --name c9e --width 236 \
    --positions $R/positions_g9b.npz --labels lookahead:$R/lookahead_g9b \
    --also $R/positions_g9c.npz lookahead:$R/lookahead_g9c \
    --init $R/c8/epoch_000.npz --epochs 12 --schedule cosine --lr 3e-4 \
    --rank 16 --rank-also-only
$PY $E/train.py --net race --name r9a \
    --positions $R/positions_g9b.npz --labels lookahead:$R/lookahead_g9b \
    --also $R/positions_g9r.npz lookahead:$R/lookahead_g9r \
    --init $R/r8/epoch_000.npz --epochs 20 --schedule cosine --lr 3e-4 \
    --rank 8 --rank-also-only
$PY $E/pack.py --contact $R/c9e/epoch_011.npz --race $R/r9a/epoch_019.npz --out $R/nets_g9.npz
echo "generation 9: $R/nets_g9.npz (scored as in experiments/TRAINING.md)"

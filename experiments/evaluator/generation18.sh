#!/bin/sh
# Generation 18 of the second evaluator: generation 17's contact and race nets, and a
# crashed net that reads the 10 blot inputs (docs/evaluator.md, "Blot features";
# train.py --crashed-blots 10) and learns realistic crashed decisions (cr1x, cr2x, cr4x,
# cr5x of crashed_realistic.sh) and bear-offs against contact (cb1x, cb3x of
# crashed_bearoff.sh), all labelled at 2 ply by generation 17, beside the rolled-out
# crashed endgames of generation17.sh (be1, be3).
#
# It needs no runs of the generations before: if generation17.sh's checkpoints (s16c, r14,
# zB3) are not in $R, pack.py --unpack writes them from generation 17's nets as shipped
# (fastbg/data/nn/nn2.npz at 315c3bf, whose float weights are those the generation was
# packed from: nets_g17.npz made from them equals that file array for array), so every set
# below is the one the earlier scripts made with the same seeds. (It read the working
# tree's nn2.npz until generation 18 was shipped there in 66febb4; after that the unpack
# wrote generation 18's crashed net as zB3.) rebuild_shipped.sh runs it after
# generation17.sh, whose checkpoints it then uses. The candidate zK9 of
# experiments/TRAINING.md also had generation 15's 2-ply sets (g15e, g15h, h2h, w1c, w1x),
# which generation15_labels.sh and generation15_wide.sh make again from generation 14's nets
# (in the history at 90504fe) in about 3 h on 2 cores (crashed_g15.sh: only what a crashed
# net reads of them); zN1 is zK9's recipe without them. The first net it fine-tunes (zB3)
# had learnt them. zN1 is generation 18's crashed net.
#
# Every step is resumable: rerun the script after an interruption and it goes on where it
# stopped. Put experiments/runs/evaluator outside the checkout (a symbolic link) if the
# checkout may be replaced.
#
#   sh experiments/evaluator/generation18.sh            # from the repository's root
#
# Compute on the 2-core VM (2026-12-05): crashed_realistic.sh's five sets (positions a few
# minutes each, labels about 26 min a set on 2 cores), cb1x and cb3x about 45 min, be1 and
# be3 about 40 min on 2 cores, training about 15 min on 2 cores.
# PY: the Python with fastbg and the [train] extra (PyTorch CPU).
set -e
PY=${PY:-python}
R=experiments/runs/evaluator
E=experiments/evaluator
mkdir -p $R
CHECKPOINTS="--contact $R/s16c/epoch_019.npz --race $R/r14/epoch_000.npz \
    --crashed $R/zB3/epoch_009.npz"
if [ ! -f $R/s16c/epoch_019.npz ] || [ ! -f $R/r14/epoch_000.npz ] || [ ! -f $R/zB3/epoch_009.npz ]; then
    [ -f $R/nets_g17.npz ] || git show 315c3bf:fastbg/data/nn/nn2.npz > $R/nets_g17.npz
    $PY $E/pack.py --unpack $R/nets_g17.npz $CHECKPOINTS
fi
[ -f $R/nets_g17.npz ] || $PY $E/pack.py $CHECKPOINTS --out $R/nets_g17.npz

# the realistic crashed decisions (cr1x to cr3x) and their labels
PY=$PY sh $E/crashed_realistic.sh

# the crashed endgames rolled out (be1, be3), then the bear-offs against contact (cb1x,
# cb3x) of crashed_bearoff.sh
. $E/crashed_data.sh
endgames
bearoffs 1 71 8000
bearoffs 3 73 40000

# two more sets of realistic crashed decisions (cr4x, cr5x), last: a net of the sets
# above can be trained while they are made
PY=$PY MORE=1 sh $E/crashed_realistic.sh

# zN1: from generation 17's crashed net, the endgames three times an epoch, the bear-offs
# and the realistic sets, 20 epochs from 1e-3 (zK9's recipe without generation 15's sets)
BE="--also $R/positions_be1.npz $R/rollvr_be1 --also $R/positions_be3.npz $R/rollvr_be3"
CB="--also $R/positions_cb1x.npz lookahead:$R/lookahead_cb1x"
CR=
for S in cr2x cr4x cr5x; do CR="$CR --also $R/positions_$S.npz lookahead:$R/lookahead_$S"; done
[ -f $R/zN1/epoch_019.npz ] || $PY $E/train.py --net crashed --name zN1 \
    --init $R/zB3/epoch_009.npz --hidden 192 --width 236 \
    --positions $R/positions_cr1x.npz --labels lookahead:$R/lookahead_cr1x \
    $BE $BE $BE $CB --also $R/positions_cb3x.npz lookahead:$R/lookahead_cb3x $CR \
    --crashed-blots 10 --epochs 20 --lr 1e-3 --schedule cosine --rank 16 --regret 1 \
    --threads 2
$PY $E/pack.py --contact $R/s16c/epoch_019.npz --race $R/r14/epoch_000.npz \
    --crashed $R/zN1/epoch_019.npz --out $R/nets_g18.npz
echo "generation 18: $R/nets_g18.npz (scored as in experiments/TRAINING.md)"

#!/bin/sh
# Generation 15's crashed decisions made again: the part of generation 15's 2-ply sets that a
# crashed net reads (train.py --net crashed keeps the crashed contact rows), for the crashed
# nets of generation 18 and later.
#
# The candidate zK9 (experiments/TRAINING.md) read generation 15's sets g15e, g15h, h2h, w1c
# and w1x; they were lost with a runs folder. Their games and labels are generation 14's,
# whose nets are in the repository's history (fastbg/data/nn/nn2.npz at 90504fe, as
# generation15_labels.sh takes them), so the same seeds give the same games:
#   g15x  the crashed decisions (candidates.py --crashed-decisions) of generation15_labels.sh's
#         20,000 games of seed 15: the crashed rows of g15e and g15h (g15h: the hard ones)
#   w1x   the crashed decisions of generation15_wide.sh's w1 games (seed 515, wide
#         candidates), as that script makes them; w1c's crashed rows are among them
# both labelled at 2 ply by generation 14, one candidate reply a roll (g15h had 3). h2h's
# crashed rows (hard decisions of 20,000 more games) are left out.
#
#   sh experiments/evaluator/crashed_g15.sh        # from the repository's root; resumable
#
# PY: the Python with fastbg.
set -e
PY=${PY:-python}
R=experiments/runs/evaluator
E=experiments/evaluator
mkdir -p $R
[ -f $R/nets_g14.npz ] || git show 90504fe:fastbg/data/nn/nn2.npz > $R/nets_g14.npz

[ -f $R/positions_g15.npz ] || $PY $E/positions.py --games 20000 --seed 15 --races 60000 \
    --keep 0.2 --alternatives 3 --nets $R/nets_g14.npz --out $R/positions_g15
[ -f $R/positions_g15x.npz ] || $PY $E/candidates.py --positions $R/positions_g15.npz \
    --crashed-decisions --out $R/positions_g15x
[ -f $R/positions_w1.npz ] || $PY $E/positions.py --games 20000 --seed 515 --races 0 \
    --keep 0.2 --alternatives 5 --lookahead-alternatives 3 --nets $R/nets_g14.npz \
    --player nets --out $R/positions_w1
[ -f $R/positions_w1x.npz ] || $PY $E/candidates.py --positions $R/positions_w1.npz \
    --crashed-decisions --out $R/positions_w1x

. $E/crashed_data.sh
for S in g15x w1x; do
    labels $S $R/nets_g14.npz
done
echo "crashed_g15.sh: g15x and w1x labelled in $R"

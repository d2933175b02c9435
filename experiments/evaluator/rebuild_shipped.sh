#!/bin/sh
# Rebuild the shipped nets (fastbg/data/nn/nn2.npz: generation 18) from git alone: the recipes
# of generations 9 to 18 of the second evaluator (generation9.sh ... generation18.sh), in
# order, each on the data and nets of the ones before it, then each generation's nets
# compared with the nets shipped for it (fastbg/data/nn/nn2.npz in the commit that shipped it).
#
#   sh experiments/evaluator/rebuild_shipped.sh --dry-run     # the plan and what is done; runs nothing
#   sh experiments/evaluator/rebuild_shipped.sh               # from the repository's root; days
#   sh experiments/evaluator/rebuild_shipped.sh --from 12 --to 14
#
# Needs: the Python with fastbg and the [train] extra (PyTorch CPU) as PY (default python),
# git (the recipes take generation 8's nets, and the teachers named below, from the history),
# 2 cores (the recipes run two label processes side by side). Not GNU Backgammon: nothing
# here scores the nets (experiments/TRAINING.md and STRENGTH.md say how each was scored).
#
# What it starts from: generation 8's nets as shipped (git show 4b68b44:fastbg/data/nn/nn2.npz,
# generation9.sh). Everything else (self-play positions, 1- and 2-ply look-ahead labels,
# rollout labels, training runs) is made again into experiments/runs/evaluator (ignored by
# git; put it outside the checkout, by a symbolic link, if the checkout may be replaced).
# Where a recipe fetches a shipped net from git only when the file is missing (generation
# 9's in generation10_labels.sh, 14's in generation15_labels.sh and generation15_wide.sh, 17's
# in generation18.sh), the generation rebuilt before it is there and is used instead: the
# chain is the rebuilt one throughout.
#
# Hours on the 2-core VM where the generations were made (experiments/TRAINING.md, "The
# generations and what they cost"; most of it 2-ply labels, and most of it measured with the
# cores shared with other work): g9 4.0, g10 3.3, g11 3.5, g12 4.7 (2.2 measured, which
# labelled the first 220,000 of its 568,687 candidates; generation_labels.sh labels them all,
# about 2.5 h more), g13 1.5, g14 1.3, g15 2.8, g16 1.2, g17 1.0, g18 4.0: about 27 hours in
# all. Plan on a day and a half.
#
# Resumable: every recipe skips the files it has made, and this script skips a generation
# whose $R/rebuild/gK.done exists (delete it to run the recipe again). Stop it at any time
# (Ctrl-C) and rerun the same command to go on. Logs: $R/rebuild/gK.log.
#
# Bit-identical? The positions and labels are seeded and the engines deterministic; training
# is PyTorch on CPU with fixed seeds, whose sums may differ in the last bits between machines,
# thread counts and PyTorch versions. $R/rebuild/gK.compare says, array by array, whether the
# rebuilt nets equal the shipped ones and by how much they differ. No rebuild has been run to
# the end since this script was written (2026-12-07): the first one will say.
#
# To ship the result: python experiments/evaluator/ship.py --gen 18 (after scoring it).
set -e
PY=${PY:-python}
R=experiments/runs/evaluator
E=experiments/evaluator
FROM=9
TO=18
DRY=0
while [ $# -gt 0 ]; do
    case "$1" in
        --dry-run|-n) DRY=1 ;;
        --from) FROM=$2; shift ;;
        --to) TO=$2; shift ;;
        -h|--help) sed -n '2,/^set -e/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "rebuild_shipped.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
    esac
    shift
done
if [ "$FROM" -lt 9 ] || [ "$TO" -gt 18 ] || [ "$FROM" -gt "$TO" ]; then
    echo "rebuild_shipped.sh: --from and --to must be in 9..18, in order" >&2; exit 2
fi
if [ ! -f "$E/generation9.sh" ] || ! git rev-parse --git-dir > /dev/null 2>&1; then
    echo "rebuild_shipped.sh: run it from the root of a git checkout of fastbg" >&2; exit 2
fi

# The commit that shipped each generation's nets as fastbg/data/nn/nn2.npz, and its hours.
shipped() {
    case $1 in
        9) echo 14b69c4 ;; 10) echo eae72c0 ;; 11) echo 4c70d83 ;; 12) echo 91fa98d ;;
        13) echo 3087925 ;; 14) echo 63e8285 ;; 15) echo 09a5cc9 ;; 16) echo 4b70b09 ;;
        17) echo 315c3bf ;; 18) echo 66febb4 ;;
    esac
}
hours() {
    case $1 in
        9) echo 4.0 ;; 10) echo 3.3 ;; 11) echo 3.5 ;; 12) echo 4.7 ;; 13) echo 1.5 ;;
        14) echo 1.3 ;; 15) echo 2.8 ;; 16) echo 1.2 ;; 17) echo 1.0 ;; 18) echo 4.0 ;;
    esac
}

# compare K: the rebuilt nets_gK.npz against the shipped nets of generation K, array by array
compare() {
    git show "$(shipped $1)":fastbg/data/nn/nn2.npz > $R/rebuild/shipped_g$1.npz
    $PY - $R/nets_g$1.npz $R/rebuild/shipped_g$1.npz <<'EOF'
import sys
import numpy as np
a, b = np.load(sys.argv[1]), np.load(sys.argv[2])
names = sorted(k for k in set(a.files) | set(b.files) if k != "sources")
same = True
for k in names:
    if k not in a.files or k not in b.files:
        print(f"{k}: only in {'the rebuilt' if k in a.files else 'the shipped'} nets"); same = False
    elif a[k].shape != b[k].shape:
        print(f"{k}: shape {a[k].shape} rebuilt, {b[k].shape} shipped"); same = False
    else:
        d = float(np.max(np.abs(a[k].astype(np.float64) - b[k].astype(np.float64)))) if a[k].size else 0.0
        print(f"{k}: {'identical' if d == 0 else f'max abs difference {d:.3g}'}")
        same = same and d == 0
print("rebuilt nets equal the shipped ones" if same else "rebuilt nets differ from the shipped ones")
EOF
}

total=0
K=$FROM
while [ "$K" -le "$TO" ]; do
    if [ -f $R/rebuild/g$K.done ]; then
        state="done ($(tail -n 1 $R/rebuild/g$K.compare 2>/dev/null || echo 'not compared'))"
    else
        state="to run"
        total=$(awk "BEGIN { print $total + $(hours $K) }")
    fi
    echo "generation $K: sh $E/generation$K.sh -> $R/nets_g$K.npz, shipped in $(shipped $K), ~$(hours $K) h: $state"
    K=$((K + 1))
done
echo "about $total hours to run on 2 cores"
if [ $DRY = 1 ]; then
    $PY -c "import torch" 2> /dev/null || echo "note: $PY cannot import torch (pip install -e '.[train]')"
    exit 0
fi
$PY -c "import torch" || { echo "rebuild_shipped.sh: $PY needs PyTorch: pip install -e '.[train]'" >&2; exit 2; }
mkdir -p $R/rebuild

K=$FROM
while [ "$K" -le "$TO" ]; do
    if [ ! -f $R/rebuild/g$K.done ]; then
        echo "$(date -u +%FT%TZ) generation $K: sh $E/generation$K.sh (log $R/rebuild/g$K.log)"
        PY=$PY sh $E/generation$K.sh >> $R/rebuild/g$K.log 2>&1
        compare $K > $R/rebuild/g$K.compare
        tail -n 1 $R/rebuild/g$K.compare
        date -u +%FT%TZ > $R/rebuild/g$K.done
    fi
    K=$((K + 1))
done
echo "generations $FROM to $TO rebuilt: $R/nets_g$TO.npz (comparisons in $R/rebuild/g*.compare)"

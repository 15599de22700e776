"""Real photographs of clothing: Fashion-MNIST, from Debian's package.

Debian (and Ubuntu) ship the Fashion-MNIST set (Xiao, Rasul and Vollgraf,
2017) as ``dataset-fashion-mnist``: 70,000 greyscale photographs of
clothing, 28 x 28 pixels, in 10 classes (T-shirt, trouser, pullover,
dress, coat, sandal, shirt, sneaker, bag, ankle boot), 7,000 of each.
Install it as root, with nothing fetched from outside the package mirror::

    apt-get install dataset-fashion-mnist

then::

    python benchmarks/make_fashion_data.py OUT.npy OUT_labels.npy

* **Rows.**  The 60,000 training images, then the 10,000 test images, as
  the files hold them (``--n`` keeps a prefix; the files are already in a
  mixed class order).
* **Pixels.**  Raw 8-bit values 0-255, stored as float32, 784 columns.
* **Labels.**  0-9, as the set defines them.

Several classes (shirt, T-shirt, pullover, coat) overlap in pixel space,
so the set is harder than handwritten digits: leave-one-out 10-NN
accuracy in pixel space (``smallvis.metrics.knn_accuracy``) is 0.826 on
the first 10,000 rows.
"""

import argparse
import gzip
import os

import numpy as np

SOURCE = "/usr/share/datasets/fashion-mnist"
PARTS = ("train", "t10k")


def _read_idx(path, magic, header_ints):
    """The payload of an IDX file after its magic number and header."""
    with gzip.open(path, "rb") as handle:
        data = handle.read()
    found = int.from_bytes(data[:4], "big")
    if found != magic:
        raise ValueError(f"{path} is not an IDX file of the expected kind "
                         f"(magic {found:#x}, wanted {magic:#x})")
    dims = [int.from_bytes(data[4 + 4 * i:8 + 4 * i], "big")
            for i in range(header_ints)]
    payload = np.frombuffer(data, dtype=np.uint8, offset=4 + 4 * header_ints)
    return payload.reshape(dims)


def load(source=SOURCE):
    """All 70,000 images (float32, 784 columns) and their labels."""
    images, labels = [], []
    for part in PARTS:
        image_path = os.path.join(source, f"{part}-images-idx3-ubyte.gz")
        label_path = os.path.join(source, f"{part}-labels-idx1-ubyte.gz")
        if not os.path.exists(image_path):
            raise SystemExit(f"{image_path} not found: install Debian's "
                             "dataset-fashion-mnist package, or give --source")
        pixels = _read_idx(image_path, 0x803, 3)
        images.append(pixels.reshape(len(pixels), -1).astype(np.float32))
        labels.append(_read_idx(label_path, 0x801, 1).astype(np.int64))
    X, y = np.concatenate(images), np.concatenate(labels)
    if len(X) != len(y):
        raise ValueError("images and labels differ in number")
    return X, y


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("out")
    parser.add_argument("out_labels")
    parser.add_argument("--n", type=int, default=None,
                        help="keep the first N rows (default: all 70,000)")
    parser.add_argument("--source", default=SOURCE)
    args = parser.parse_args(argv)
    X, y = load(args.source)
    if args.n is not None:
        if args.n < 1:
            parser.error("--n must be at least 1")
        X, y = X[:args.n], y[:args.n]
    for path in (args.out, args.out_labels):
        if os.path.exists(path):
            parser.error(f"{path} exists; give a new file name")
    np.save(args.out, X)
    np.save(args.out_labels, y)
    print(f"{args.out}: {X.shape[0]} x {X.shape[1]}, "
          f"{len(np.unique(y))} classes")


if __name__ == "__main__":
    main()

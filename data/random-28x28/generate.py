import gzip, random, struct
rng = random.Random(20261129)
def images(n, corners):
    out = []
    if corners:
        out.append(bytes([255] * 784))
        out.append(bytes([0] * 784))
        out.append(bytes([255 if (r + c) % 2 else 0 for r in range(28) for c in range(28)]))
    while len(out) < n:
        out.append(bytes(rng.randrange(256) for _ in range(784)))
    return out
def write(name, header, body):
    with open(name, "wb") as raw:
        with gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0) as f:
            f.write(header + body)
for prefix, n, corners in [("train", 16, True), ("t10k", 8, False)]:
    imgs = images(n, corners)
    labels = bytes(rng.randrange(10) for _ in range(n))
    write(f"{prefix}-images-idx3-ubyte.gz", struct.pack(">IIII", 0x803, n, 28, 28), b"".join(imgs))
    write(f"{prefix}-labels-idx1-ubyte.gz", struct.pack(">II", 0x801, n), labels)

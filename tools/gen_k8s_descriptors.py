"""Regenerate ``reference/machinery/k8s_descriptors.binpb``: the message descriptors of the
Kubernetes ``generated.proto`` files that kube32's protobuf request bodies need, in one protoc run.

The .proto sources are not kept in this repository. Check out k8s.io/api and k8s.io/apimachinery
at tag ``v0.33.9`` (Kubernetes 1.33) side by side as ``DIR/k8s.io/api`` and ``DIR/k8s.io/apimachinery``,
then (protoc comes from the ``protoc`` dependency group, grpcio-tools):

    python tools/gen_k8s_descriptors.py DIR

The output is a FileDescriptorSet (``--include_imports``, no source info: names, numbers, types).
It is loaded into a private descriptor pool rather than generated ``_pb2`` modules, whose imports
would be ``k8s.io.…`` (not an importable Python name) and whose global registration could clash with
a program's own Kubernetes protos.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from grpc_tools import protoc

TAG = "v0.33.9"
PROTOS = (
    "k8s.io/apimachinery/pkg/runtime/schema/generated.proto",
    "k8s.io/apimachinery/pkg/runtime/generated.proto",
    "k8s.io/apimachinery/pkg/util/intstr/generated.proto",
    "k8s.io/apimachinery/pkg/api/resource/generated.proto",
    "k8s.io/apimachinery/pkg/apis/meta/v1/generated.proto",
    "k8s.io/api/core/v1/generated.proto",
    "k8s.io/api/apps/v1/generated.proto",
    "k8s.io/api/batch/v1/generated.proto",
    "k8s.io/api/coordination/v1/generated.proto",
)
OUT = Path(__file__).resolve().parents[1] / "reference" / "machinery" / "k8s_descriptors.binpb"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("root", type=Path, help=f"the directory holding k8s.io/api and k8s.io/apimachinery at {TAG}")
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args(argv)
    missing = [p for p in PROTOS if not (args.root / p).is_file()]
    if missing:
        parser.error(f"not under {args.root}: {', '.join(missing)}")
    code = protoc.main(["protoc", f"-I{args.root}", "--include_imports", f"--descriptor_set_out={args.out}",
                        *PROTOS])
    if code == 0:
        print(f"wrote {args.out} ({args.out.stat().st_size} bytes)")
    return code


if __name__ == "__main__":
    sys.exit(main())

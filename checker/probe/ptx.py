"""One PTX kernel per instruction variant. The kernel only moves raw register images: each
thread loads its A, B and C registers from global memory, runs the one `mma`, and stores D.
All layout knowledge stays on the host, in the spec; one warp per pattern, so a batch of
patterns is one launch.

Memory, per operand: [thread][register], 32- or 64-bit words; thread = ctaid.x * ntid.x + tid.x.
"""
from __future__ import annotations

from checker.export import safe
from checker.spec.model import KIND_BITS

PTX_VERSION = "8.7"
_REG = {"f16x2": "b32", "b32": "b32", "s32": "s32", "f32": "f32", "f64": "f64", "b64": "b64"}


def _row(fragment, type_):
    return next(r for r in fragment.table if type_ in r.types)


def kernel_name(v) -> str:
    return "probe_" + v.instruction.replace("mma.sync.aligned.", "").replace(".", "_")


def generate(v, sm: int, version: str = PTX_VERSION) -> str:
    """PTX for one variant, targeting sm_<sm>, at PTX ISA `version`."""
    ops = {}
    for op in "ABCD":
        row = _row(v.fragment(op), v.type_of(op))
        ops[op] = (row.count, _REG[row.kind], KIND_BITS[row.kind] // 8)
    lines = [safe.comment("//", f"{v.instruction}: A {v.a.id}, B {v.b.id}, C {v.c.id}, D {v.d.id}"),
             f".version {version}", f".target sm_{sm}", ".address_size 64", "",
             f".visible .entry {kernel_name(v)}(",
             "    .param .u64 pa, .param .u64 pb, .param .u64 pc, .param .u64 pd)", "{",
             "    .reg .b32 %t<4>;", "    .reg .b64 %p<4>, %off<4>, %q<4>;"]
    for op, (count, reg, _) in ops.items():
        lines.append(f"    .reg .{reg} %{op.lower()}<{count}>;")
    lines += ["    mov.u32 %t0, %ctaid.x;", "    mov.u32 %t1, %ntid.x;", "    mov.u32 %t2, %tid.x;",
              "    mad.lo.u32 %t3, %t0, %t1, %t2;"]
    for k, op in enumerate("ABCD"):
        count, reg, size = ops[op]
        lines += [f"    ld.param.u64 %p{k}, [p{op.lower()}];", f"    cvta.to.global.u64 %p{k}, %p{k};",
                  f"    mul.wide.u32 %off{k}, %t3, {count * size};", f"    add.u64 %q{k}, %p{k}, %off{k};"]
    for k, op in enumerate("ABC"):
        count, reg, size = ops[op]
        lines += [f"    ld.global.{reg} %{op.lower()}{j}, [%q{k}+{j * size}];" for j in range(count)]

    def vec(op):
        return "{" + ", ".join(f"%{op.lower()}{j}" for j in range(ops[op][0])) + "}"

    lines.append(f"    {v.instruction} {vec('D')}, {vec('A')}, {vec('B')}, {vec('C')};")
    count, reg, size = ops["D"]
    lines += [f"    st.global.{reg} [%q3+{j * size}], %d{j};" for j in range(count)]
    lines += ["    ret;", "}", ""]
    return "\n".join(lines)

"""One PTX kernel per instruction variant. The kernel only moves raw register images: each
thread loads its A, B and C registers from global memory, runs the one `mma`, and stores D.
All layout knowledge stays on the host, in the spec; one warp per pattern, so a batch of
patterns is one launch.

Memory, per operand: [thread][register], 32- or 64-bit words; thread = ctaid.x * ntid.x + tid.x.
"""
from __future__ import annotations

from checker.spec.model import KIND_BITS

PTX_VERSION = "8.7"
# the minimum target of each (shape, A type) the specs use, from the PTX ISA's Target ISA Notes
# (../shared/ptx-isa/mma-support-table.md, sections 3d and 3e; checker/report/isa-support.yaml)
_MIN_SM = {("m8n8k4", "f16"): 70, ("m8n8k4", "f64"): 80, ("m8n8k32", "s4"): 75, ("m8n8k32", "u4"): 75,
           ("m16n8k16", "f16"): 80, ("m16n8k16", "bf16"): 80, ("m16n8k16", "f64"): 90,
           ("m16n8k16", "u8"): 80, ("m16n8k16", "s8"): 80, ("m16n8k16", "e4m3"): 89, ("m16n8k16", "e5m2"): 89,
           ("m16n8k256", "b1"): 80,
           ("m16n8k8", "f16"): 75, ("m16n8k8", "bf16"): 80, ("m16n8k8", "tf32"): 80, ("m16n8k8", "f64"): 90,
           ("m16n8k4", "tf32"): 80, ("m16n8k4", "f64"): 90, ("m8n8k16", "u8"): 75, ("m8n8k16", "s8"): 75,
           ("m16n8k32", "u8"): 80, ("m16n8k32", "s8"): 80, ("m16n8k32", "u4"): 80, ("m16n8k32", "s4"): 80,
           ("m16n8k32", "e4m3"): 89, ("m16n8k32", "e5m2"): 89, ("m16n8k64", "u4"): 80, ("m16n8k64", "s4"): 80,
           ("m8n8k128", "b1"): 75, ("m16n8k128", "b1"): 80}
_REG = {"f16x2": "b32", "b32": "b32", "s32": "s32", "f32": "f32", "f64": "f64", "b64": "b64"}


def min_sm(v) -> int | None:
    need = _MIN_SM.get((v.shape, v.atype))
    if need is not None and v.op == "and":  # .and.popc: PTX 7.1, sm_80 (the table's m8n8k128 row)
        need = max(need, 80)
    return need


def _row(fragment, type_):
    return next(r for r in fragment.table if type_ in r.types)


def kernel_name(v) -> str:
    return "probe_" + v.instruction.replace("mma.sync.aligned.", "").replace(".", "_")


def generate(v, sm: int) -> str:
    """PTX for one variant, targeting sm_<sm>."""
    ops = {}
    for op in "ABCD":
        row = _row(v.fragment(op), v.type_of(op))
        ops[op] = (row.count, _REG[row.kind], KIND_BITS[row.kind] // 8)
    lines = [f"// {v.instruction}: A {v.a.id}, B {v.b.id}, C {v.c.id}, D {v.d.id}",
             f".version {PTX_VERSION}", f".target sm_{sm}", ".address_size 64", "",
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

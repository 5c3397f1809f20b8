// The bench's floor: one invocation storing one word. Timed like the variants, it is the least
// any compute pass costs on the adapter, timestamps included.

@group(0) @binding(0) var<storage, read_write> word: u32;

@compute @workgroup_size(1, 1, 1)
fn floor_pass() {
    word = 1u;
}

// Sets the linker flags a Node addon needs (N-API symbols resolved by the host process at load time).
fn main() {
    napi_build::setup();
}

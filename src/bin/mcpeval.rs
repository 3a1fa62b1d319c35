//! The `mcpeval` command line.

fn main() {
    println!("mcpeval {}", mcpeval::VERSION);
}

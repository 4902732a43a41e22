//! Connected components over an edge list.

/// Labels every node with the smallest node index in its component. Unions always hang the larger
/// root under the smaller one, so every root is its component's minimum and the labelling does not
/// depend on edge order; path halving keeps finds near-constant.
pub fn component_labels(node_count: usize, a: &[u32], b: &[u32]) -> Vec<i32> {
    let mut parent: Vec<u32> = (0..node_count as u32).collect();
    fn find(parent: &mut [u32], mut node: u32) -> u32 {
        while parent[node as usize] != node {
            let grandparent = parent[parent[node as usize] as usize];
            parent[node as usize] = grandparent;
            node = grandparent;
        }
        node
    }
    for (&x, &y) in a.iter().zip(b) {
        let (root_x, root_y) = (find(&mut parent, x), find(&mut parent, y));
        if root_x < root_y {
            parent[root_y as usize] = root_x;
        } else if root_y < root_x {
            parent[root_x as usize] = root_y;
        }
    }
    (0..node_count as u32).map(|node| find(&mut parent, node) as i32).collect()
}

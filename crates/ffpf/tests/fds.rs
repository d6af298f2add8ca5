//! Removing flows frees their memory: their memfds are closed and unmapped.
//! (One test in its own binary, so no other test opens descriptors meanwhile.)

use netsift_ffpf::{Group, Policy};

fn open_fds() -> usize {
    std::fs::read_dir("/proc/self/fd").unwrap().count()
}

fn netsift_maps() -> usize {
    std::fs::read_to_string("/proc/self/maps")
        .unwrap()
        .lines()
        .filter(|l| l.contains("memfd:netsift"))
        .count()
}

#[test]
fn removing_flows_frees_their_memfds() {
    let mut g = Group::new(Policy::SlowReader, 1 << 16).unwrap();
    let (fds0, maps0) = (open_fds(), netsift_maps());
    let mut ids = Vec::new();
    for _ in 0..10 {
        let (id, fds) = g.add_flow(1024).unwrap();
        drop(fds);
        ids.push(id);
    }
    // Per flow: IBuf memfd, control memfd, the writer's end of the wake
    // channel; two mappings (IBuf, control page).
    assert_eq!(open_fds(), fds0 + 30);
    assert_eq!(netsift_maps(), maps0 + 20);
    for &id in &ids {
        g.remove_flow(id).unwrap();
    }
    assert_eq!(open_fds(), fds0);
    assert_eq!(netsift_maps(), maps0);
    assert!(g.flow_ids().is_empty());
    assert!(
        g.remove_flow(ids[0]).is_err(),
        "a removed flow's id stays dead"
    );
    let (again, _) = g.add_flow(2).unwrap();
    assert_ne!(again, ids[0], "a reused slot gets a new id");
    assert!(g.counters(ids[0]).is_none());
    g.remove_flow(again).unwrap();
    drop(g);
    assert_eq!(open_fds(), fds0 - 1, "the group's PBuf memfd");
}

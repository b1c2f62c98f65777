//! The set-up on a busy machine: another program holds apt's lock while the set-up installs
//! Debian's packages (scripts/apt.sh, which ./run.sh and ./test.sh reach through
//! scripts/setup.sh). It waits, naming the program, and goes on once the lock is free; past
//! its wait it stops, naming the program still holding it. The lock is held as apt-get and
//! unattended-upgrades hold it (an fcntl lock on the file), by a program of the test's own.

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The lists' lock, the one a new machine's own `apt-get update` holds at boot.
const LISTS_LOCK: &str = "/var/lib/apt/lists/lock";

/// A python3 holding `lock` for `seconds`, once it says it holds it.
fn hold(lock: &str, seconds: u32) -> Child {
    let mut child = Command::new("python3")
        .args([
            "-c",
            "import fcntl, sys, time\nf = open(sys.argv[1], 'a')\nfcntl.lockf(f, fcntl.LOCK_EX | fcntl.LOCK_NB)\nprint('held', flush=True)\ntime.sleep(float(sys.argv[2]))",
            lock,
            &seconds.to_string(),
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    if line.trim() != "held" {
        let out = child.wait_with_output().unwrap();
        panic!(
            "could not hold {lock} (the test takes apt's lock as root does): {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    child
}

/// scripts/apt.sh with `args`, waiting at most `wait` seconds for the locks → (succeeded,
/// what it said, how long it took).
fn apt_sh(args: &[&str], wait: u32) -> (bool, String, Duration) {
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("scripts/apt.sh");
    let t0 = Instant::now();
    let out = Command::new("bash")
        .arg(script)
        .args(args)
        .env("RELICVIEW_APT_WAIT", wait.to_string())
        .env("RELICVIEW_APT_POLL", "1")
        .output()
        .unwrap();
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
        t0.elapsed(),
    )
}

#[test]
fn the_set_up_waits_for_a_busy_package_manager_and_names_the_program_holding_it() {
    // Held for 4 s while the set-up installs a package (zip: the set-up installs it, so the
    // install changes nothing but takes every lock apt takes): it waits, says who holds the
    // lock, then installs.
    let mut holder = hold(LISTS_LOCK, 4);
    let pid = holder.id();
    let (ok, said, took) = apt_sh(&["install", "--no-install-recommends", "zip"], 120);
    holder.wait().unwrap();
    assert!(ok, "the install went on once the lock was free: {said}");
    assert!(
        took >= Duration::from_secs(3),
        "it waited for the lock: {took:?}: {said}"
    );
    assert!(
        said.contains(&format!(
            "waiting for {LISTS_LOCK}, held by process {pid} (python3)"
        )),
        "{said}"
    );
    // Held past the set-up's wait: it stops soon after, naming the program, and does not
    // run apt-get (which would fail at once, as it did on a new machine).
    let mut holder = hold(LISTS_LOCK, 60);
    let pid = holder.id();
    let (ok, said, took) = apt_sh(&["install", "--no-install-recommends", "zip"], 2);
    holder.kill().unwrap();
    holder.wait().unwrap();
    assert!(!ok, "{said}");
    assert!(
        took < Duration::from_secs(30),
        "it stopped after its wait: {took:?}"
    );
    assert!(
        said.contains("gave up after")
            && said.contains(&format!(
                "{LISTS_LOCK} is still held by process {pid} (python3)"
            )),
        "{said}"
    );
    assert!(
        !said.contains("Could not get lock"),
        "apt-get was not run into the lock: {said}"
    );
}

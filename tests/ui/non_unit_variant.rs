use mrtr_guard::FormChoice;

#[derive(FormChoice)]
enum Speed {
    Standard,
    Custom { days: u8 },
}

fn main() {
    // The impl is there despite the error: no second error where it is used.
    let _ = <Speed as mrtr_guard::FormChoice>::options();
}

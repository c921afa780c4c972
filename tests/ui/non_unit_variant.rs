use mrtr_guard::FormChoice;

#[derive(FormChoice)]
enum Speed {
    Standard,
    Custom { days: u8 },
}

fn main() {}

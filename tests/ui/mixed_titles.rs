use mrtr_guard::FormChoice;

#[derive(FormChoice)]
enum Speed {
    #[form(title = "Standard (5 days)")]
    Standard,
    Express,
}

fn main() {
    // The impl is there despite the error: no second error where it is used.
    let _ = <Speed as mrtr_guard::FormChoice>::options();
}

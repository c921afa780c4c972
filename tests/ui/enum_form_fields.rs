use mrtr_guard::FormFields;

#[derive(FormFields)]
enum Speed {
    Standard,
    Express,
}

fn main() {
    // The impl is there despite the error: no second error where it is used.
    let _ = mrtr_guard::Form::of::<Speed>("Pick one");
}

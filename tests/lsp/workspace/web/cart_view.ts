import { getUserName, UserProfile } from "./user";

export class CartView {
  private rows: string[] = [];

  constructor(private readonly owner: UserProfile) {}

  addRow(label: string): void {
    this.rows.push(label);
  }

  render(): string {
    return `${getUserName(this.owner)}: ${this.rows.join(", ")}`;
  }
}

// A data query over a generated CSV (bench/regret writes orders.csv
// beside a copy of this file): bench/regret.
type Order = { id: Int, amount: Int }
data orders: List[Order] from "orders.csv"

intent large_orders(min_amount: Int) -> List[Order]:
    constraints:
        - result contains all orders where order.amount >= min_amount

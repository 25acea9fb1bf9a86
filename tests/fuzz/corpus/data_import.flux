import "other.flux"
import "lib/util.flux"
type Order = { id: Int, total: Float, customer: String }
data orders: List[Order] from "orders.csv"
data accounts: Stream[Order] from "shop.db:accounts"

intent big_orders(min_total: Float) -> List[Order]:
    constraints:
        - result contains all orders where order.total >= min_total
        - result is sorted descending by order.total
